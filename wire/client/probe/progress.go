package probe

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress is one step of a run as it goes (Options.Progress): check ID
// started (Verdict "") or finished with Verdict.
type Progress struct {
	ID      string
	Verdict Verdict
}

// progress tells Options.Progress of a step, if it listens.
func (p *prober) progress(id string, v Verdict) {
	if p.opts.Progress != nil {
		p.opts.Progress(Progress{ID: id, Verdict: v})
	}
}

// Planned is how many checks a run with these options finishes, as
// Options.Progress hears them: the selected checks, PRE-01 (the run's
// first word) and PRE-03 (its last, which the report leaves out when it
// passed unselected), each once; 0 for a selection that names no check.
func Planned(o Options) int {
	checks, err := Select(o.Only, o.Skip)
	if err != nil {
		return 0
	}
	n := len(checks)
	for _, always := range []string{pre01.ID, lastWord.ID} {
		if !selects(checks, always) {
			n++
		}
	}
	return n
}

func selects(checks []*Check, id string) bool {
	for _, c := range checks {
		if c.ID == id {
			return true
		}
	}
	return false
}

// ProgressLine shows a run as it goes, for stderr: on a terminal (live)
// one line redrawn in place with the checks done of the total, the ones
// running and the time since the start; elsewhere one short line per
// finished check, so a CI log shows the run advancing. It is safe for
// the concurrent calls of a run.
type ProgressLine struct {
	w     io.Writer
	live  bool
	total int
	start time.Time
	now   func() time.Time

	mu      sync.Mutex
	done    int
	running []string
	walks   string // "walks 3 of 50" while exploring
	drawn   bool
}

// NewProgressLine shows a run of total checks on w from now on; live
// redraws one line (a terminal), otherwise it writes a line per check.
func NewProgressLine(w io.Writer, total int, live bool, now func() time.Time) *ProgressLine {
	return &ProgressLine{w: w, live: live, total: total, start: now(), now: now}
}

// Step takes one step of the run: Options.Progress.
func (l *ProgressLine) Step(p Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p.Verdict == "" {
		l.running = append(l.running, p.ID)
	} else {
		l.done++
		for i, id := range l.running {
			if id == p.ID {
				l.running = append(l.running[:i], l.running[i+1:]...)
				break
			}
		}
		if !l.live {
			fmt.Fprintf(l.w, "probe: %d/%d %-5s %s (%s)\n", l.done, l.total, p.Verdict, p.ID, l.elapsed())
			return
		}
	}
	if l.live {
		l.draw()
	}
}

// Walk shows how far an exploration is: done walks of total.
func (l *ProgressLine) Walk(done, total int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.walks = fmt.Sprintf("walks %d of %d", done, total)
	if l.live {
		l.draw()
		return
	}
	fmt.Fprintf(l.w, "probe: explore: %s (%s)\n", l.walks, l.elapsed())
}

// Tick redraws the live line with the time now, so it moves while a
// long check waits; elsewhere it does nothing.
func (l *ProgressLine) Tick() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.live {
		l.draw()
	}
}

// Close clears the live line, so the report that follows starts on a
// clean line.
func (l *ProgressLine) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.live && l.drawn {
		io.WriteString(l.w, "\r\x1b[K")
	}
	l.drawn = false
}

// maxRunning bounds the checks the live line names, so it fits a
// terminal of 80 columns.
const maxRunning = 3

func (l *ProgressLine) draw() {
	line := fmt.Sprintf("probe: %d/%d checks, %s", l.done, l.total, l.elapsed())
	if l.walks != "" {
		line += ", " + l.walks
	}
	if n := len(l.running); n > 0 {
		names := l.running[:min(n, maxRunning)]
		line += "; running " + strings.Join(names, ", ")
		if n > maxRunning {
			line += fmt.Sprintf(" and %d more", n-maxRunning)
		}
	}
	io.WriteString(l.w, "\r\x1b[K"+line)
	l.drawn = true
}

func (l *ProgressLine) elapsed() string {
	return l.now().Sub(l.start).Truncate(100 * time.Millisecond).String()
}
