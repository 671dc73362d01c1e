package scenario

import (
	"bytes"
	"context"
	"io"
	"rawmcp/wire/client"
	"strings"
	"time"

	"rawmcp/httpparse"
	"rawmcp/wire"
	"rawmcp/wire/rule"
)

// RunOptions adjust a run of the demo, the attacks or the experiments.
type RunOptions struct {
	// Trace, if set, receives every raw exchange like curl -v, tokens and
	// session ids redacted, each response of a fixture's exchanges
	// annotated with its rule (RunAttacks' probe checks are traced by the
	// probe: each check's exchanges, then its verdict).
	Trace io.Writer
	// Fixture adjusts every server the run starts.
	Fixture Options
}

// run is one run of the demo, the attack table or the experiments: the
// servers it starts and everything it saw on the wire.
type run struct {
	ctx        context.Context
	fixture    Options
	secret     *client.Redactor
	trace      *tracer   // nil: no trace
	traceTo    io.Writer // where trace prints; the probe's trace goes there too
	roundTrips int
	// exposed is what each response showed a client, kept for the leak
	// check at the end of the run.
	exposed []exposure
}

type exposure struct {
	step  string
	bytes []byte
}

func newRun(ctx context.Context, opts RunOptions) *run {
	r := &run{ctx: ctx, fixture: opts.Fixture, secret: &client.Redactor{}, traceTo: opts.Trace}
	if opts.Trace != nil {
		r.trace = &tracer{w: opts.Trace, secret: r.secret}
	}
	return r
}

// start starts a server for one part of the run. The run learns its
// tokens first, so nothing about them is ever printed unredacted.
func (r *run) start(label string) (*bench, error) {
	fx, err := Start(r.fixture)
	if err != nil {
		return nil, err
	}
	for _, token := range fx.Tokens {
		r.secret.AddToken(token)
	}
	r.trace.note("%s: a fresh server on %s", label, fx.Addr)
	return &bench{run: r, fx: fx, rules: map[*httpparse.Response]rule.ID{}}, nil
}

// observe keeps what resp showed for the leak check. The Mcp-Session-Id
// of a 200 is the one place a session id belongs (T-38): the run learns it
// there and leaves it out of the scan.
func (r *run) observe(step string, resp *httpparse.Response) {
	var shown bytes.Buffer
	shown.WriteString(resp.Reason + "\n")
	for _, h := range resp.Header {
		if resp.Status == 200 && strings.EqualFold(h.Name, "Mcp-Session-Id") {
			r.secret.AddSession(h.Value)
			continue
		}
		shown.WriteString(h.Name + ": " + h.Value + "\n")
	}
	shown.Write(resp.Body)
	r.exposed = append(r.exposed, exposure{step, shown.Bytes()})
}

// leaks scans every response of the run for every fixture token and every
// session id issued: no error answer, no body, no other header may echo
// one (A-33, A-P01, A-P07).
func (r *run) leaks() []string {
	var found []string
	for _, e := range r.exposed {
		for _, label := range r.secret.Found(e.bytes) {
			found = append(found, "the response to "+e.step+" carries "+label)
		}
	}
	return found
}

// bench is one running server and the clients talking to it.
type bench struct {
	run     *run
	fx      *Fixture
	clients []*client.Client
	// pending holds decisions taken from the server but not yet matched
	// to a response.
	pending []wire.Decision
	// rules maps each response to the rule that decided it.
	rules map[*httpparse.Response]rule.ID
}

func (b *bench) close() error {
	for _, c := range b.clients {
		c.Close()
	}
	return b.fx.Close()
}

// peer returns a new client on its own connection holding the named
// fixture token; "" holds none.
func (b *bench) peer(tokenName string) *peer {
	token, ok := b.fx.Tokens[tokenName]
	if tokenName != "" && !ok {
		panic("scenario: no fixture token " + tokenName)
	}
	c := client.New(b.fx.Addr)
	b.clients = append(b.clients, c)
	return &peer{b: b, c: c, token: token}
}

// send writes raw on c, reads one response, and lets the run see it:
// counted, kept for the leak check, matched with the server's decision,
// traced.
func (b *bench) send(c *client.Client, step string, raw []byte) (*httpparse.Response, error) {
	if err := b.run.ctx.Err(); err != nil {
		return nil, err
	}
	b.dropDecisions()
	resp, err := c.Do(raw, bytes.HasPrefix(raw, []byte("HEAD ")))
	var d *wire.Decision
	if resp != nil {
		b.run.roundTrips++
		if d = b.awaitDecision(); d != nil {
			b.rules[resp] = d.Rule
		}
		b.run.observe(step, resp)
	}
	b.run.trace.exchange(step, raw, resp, err, d)
	return resp, err
}

// The server reports a decision just after writing its response, so the
// client can read the response first: wait for it, briefly.
const decisionWait = 2 * time.Second

func (b *bench) awaitDecision() *wire.Decision {
	deadline := time.Now().Add(decisionWait)
	for pause := 20 * time.Microsecond; ; pause = min(2*pause, 5*time.Millisecond) {
		b.pending = append(b.pending, b.fx.TakeDecisions()...)
		if len(b.pending) > 0 {
			d := b.pending[0]
			b.pending = b.pending[1:]
			return &d
		}
		if time.Now().After(deadline) {
			return nil
		}
		time.Sleep(pause)
	}
}

// dropDecisions forgets decisions no response was matched with (a request
// the server answered after the client stopped reading).
func (b *bench) dropDecisions() {
	b.fx.TakeDecisions()
	b.pending = nil
}
