package probe

import (
	"encoding/json"
	"strconv"
	"time"
)

// listenWindow is how long V2-29 reads a subscriptions/listen stream: the
// acknowledgment comes first, at once; what follows within the window is
// checked against the filter.
const listenWindow = 1500 * time.Millisecond

// listenFilters are the change notifications a capability advertises, as
// a listen filter and the notification it admits.
var listenFilters = []struct {
	capability, flag, filter, notification string
}{
	{"tools", "listChanged", "toolsListChanged", "notifications/tools/list_changed"},
	{"prompts", "listChanged", "promptsListChanged", "notifications/prompts/list_changed"},
	{"resources", "listChanged", "resourcesListChanged", "notifications/resources/list_changed"},
}

// V2-29: subscriptions/listen is acknowledged first and honours its filter.
var v229 = Check{ID: "V2-29", Level: Must, Source: "MCP 2026-07-28 Subscriptions (acknowledged first, subscriptionId on every notification, nothing outside the filter: MUST); Basic §_meta", Needs: NeedModern,
	Section: "MCP 2026-07-28 Subscriptions", Keyword: "MUST", Binds: Server,
	Line:   "subscriptions/listen acknowledged, tagged and filtered",
	Sends:  "subscriptions/listen for the first list change server/discover advertises; reads 1.5 s, then closes",
	Passes: "an event stream whose first message is notifications/subscriptions/acknowledged with the request's id as subscriptionId, every notification so tagged and of the filter's type; skips when nothing is advertised",
	run:    runV229}

func runV229(t *checkRun) outcome {
	caps, o := t.discoverCapabilities()
	if o != nil {
		return *o
	}
	var chosen *struct{ capability, flag, filter, notification string }
	for i, f := range listenFilters {
		var c map[string]json.RawMessage
		if json.Unmarshal(caps[f.capability], &c) == nil && string(c[f.flag]) == "true" {
			chosen = &listenFilters[i]
			break
		}
	}
	if chosen == nil {
		return t.skip("server/discover advertises no listChanged capability: no subscription to open")
	}
	req, id := t.modernRequest("subscriptions/listen", `{"notifications":{"`+chosen.filter+`":true}}`)
	r := t.send("subscriptions/listen for "+chosen.filter, req.Bytes(), toResponse, listenWindow)
	if o := t.unjudgeable(r); o != nil {
		return *o
	}
	want := "an event stream acknowledged first, subscriptionId " + strconv.FormatInt(id, 10)
	if r.status() != 200 || !r.isSSE() {
		return t.unmet("subscriptions/listen for %s %s, where server/discover advertises %s.%s", chosen.filter, r.describe(), chosen.capability, chosen.flag).with(want, r.said())
	}
	idText := strconv.FormatInt(id, 10)
	first := true
	for _, ev := range r.events() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if ev.Data == "" || json.Unmarshal([]byte(ev.Data), &m) != nil {
			continue
		}
		if m.Method == "" {
			// The response that ends the subscription.
			continue
		}
		tag := string(m.Params.Meta["io.modelcontextprotocol/subscriptionId"])
		switch {
		case first && m.Method != "notifications/subscriptions/acknowledged":
			return t.unmet("the stream's first message is %s, not notifications/subscriptions/acknowledged", m.Method).with(want, "first "+m.Method)
		case tag != idText:
			return t.unmet("%s carries subscriptionId %s, not the listen request's id %s", m.Method, idOrNone(tag), idText).with(want, m.Method+" with subscriptionId "+idOrNone(tag))
		case !first && m.Method != chosen.notification && m.Method != "notifications/cancelled":
			return t.unmet("%s on a stream that asked only for %s (MUST NOT)", m.Method, chosen.filter).with("only "+chosen.notification, m.Method)
		}
		first = false
	}
	if first {
		return t.unmet("subscriptions/listen answered an event stream with no acknowledgment within %s", listenWindow).with(want, "no notification")
	}
	return t.pass("acknowledged first with subscriptionId %s; nothing outside %s", idText, chosen.filter)
}

func idOrNone(tag string) string {
	if tag == "" {
		return "none"
	}
	return tag
}
