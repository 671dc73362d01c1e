package state

import (
	"errors"
	"fmt"
	"testing"
)

var (
	allPhases = []Phase{PhaseInitializing, PhaseOperating, PhaseClosed}
	allInputs = []Input{InputInitialized, InputPing, InputRequest, InputInitialize, InputPoll, InputDelete}
)

type cell struct {
	from Phase
	in   Input
}

type outcome struct {
	to  Phase
	err error
}

// lifecycleSpec restates transitions.go cell by cell, written by hand from
// the profile so that a wrong or missing table entry fails the test.
var lifecycleSpec = map[cell]struct {
	name string
	want outcome
}{
	{PhaseInitializing, InputInitialized}: {"T-54/initialized completes the handshake", outcome{PhaseOperating, nil}},
	{PhaseInitializing, InputPing}:        {"T-55/ping before initialized", outcome{PhaseInitializing, nil}},
	{PhaseInitializing, InputRequest}:     {"T-P06/request before initialized", outcome{PhaseInitializing, ErrLifecycle}},
	{PhaseInitializing, InputInitialize}:  {"T-P06/second initialize before initialized", outcome{PhaseInitializing, ErrLifecycle}},
	{PhaseInitializing, InputPoll}:        {"T-55/GET before initialized (Go SDK order)", outcome{PhaseInitializing, nil}},
	{PhaseInitializing, InputDelete}:      {"T-45/DELETE before initialized", outcome{PhaseClosed, nil}},

	{PhaseOperating, InputInitialized}: {"T-54/second initialized", outcome{PhaseOperating, ErrLifecycle}},
	{PhaseOperating, InputPing}:        {"T-59/ping while operating", outcome{PhaseOperating, nil}},
	{PhaseOperating, InputRequest}:     {"T-67/request while operating", outcome{PhaseOperating, nil}},
	{PhaseOperating, InputInitialize}:  {"T-P06/second initialize while operating", outcome{PhaseOperating, ErrLifecycle}},
	{PhaseOperating, InputPoll}:        {"T-27/GET while operating", outcome{PhaseOperating, nil}},
	{PhaseOperating, InputDelete}:      {"T-45/DELETE while operating", outcome{PhaseClosed, nil}},

	{PhaseClosed, InputInitialized}: {"T-43/initialized after DELETE", outcome{PhaseClosed, ErrNotFound}},
	{PhaseClosed, InputPing}:        {"T-43/ping after DELETE", outcome{PhaseClosed, ErrNotFound}},
	{PhaseClosed, InputRequest}:     {"T-43/request after DELETE", outcome{PhaseClosed, ErrNotFound}},
	{PhaseClosed, InputInitialize}:  {"T-43/initialize after DELETE", outcome{PhaseClosed, ErrNotFound}},
	{PhaseClosed, InputPoll}:        {"T-43/GET after DELETE", outcome{PhaseClosed, ErrNotFound}},
	{PhaseClosed, InputDelete}:      {"T-43/DELETE after DELETE", outcome{PhaseClosed, ErrNotFound}},
}

func TestLifecycleSpecCoversEveryCell(t *testing.T) {
	for _, from := range allPhases {
		for _, in := range allInputs {
			if _, ok := lifecycleSpec[cell{from, in}]; !ok {
				t.Errorf("no expectation for %v + %v", from, in)
			}
		}
	}
	if got, want := len(lifecycleSpec), len(allPhases)*len(allInputs); got != want {
		t.Errorf("lifecycleSpec has %d cells, want %d", got, want)
	}
}

// TestTransition drives the lifecycle table function cell by cell.
func TestTransition(t *testing.T) {
	for c, tc := range lifecycleSpec {
		t.Run(tc.name, func(t *testing.T) {
			to, err := transition(c.from, c.in)
			if to != tc.want.to || !errors.Is(err, tc.want.err) || (err == nil) != (tc.want.err == nil) {
				t.Errorf("transition(%v, %v) = (%v, %v), want (%v, %v)", c.from, c.in, to, err, tc.want.to, tc.want.err)
			}
		})
	}
}

// TestTransitionTableListsOnlyLegalCells checks the table from the other
// side: every entry it lists is legal in the hand-written spec and leads
// where the spec says.
func TestTransitionTableListsOnlyLegalCells(t *testing.T) {
	for from, row := range lifecycle {
		for in, e := range row {
			if !e.legal {
				continue
			}
			tc, ok := lifecycleSpec[cell{Phase(from), Input(in)}]
			if !ok || tc.want.err != nil || tc.want.to != e.next {
				t.Errorf("table lists %v + %v → %v; spec wants %+v", Phase(from), Input(in), e.next, tc.want)
			}
		}
	}
}

// sessionIn returns a session of alice brought into phase through Step.
func sessionIn(t *testing.T, tab *Table, phase Phase) string {
	t.Helper()
	id := mustCreate(t, tab, alice)
	switch phase {
	case PhaseOperating:
		mustStep(t, tab, id, alice, InputInitialized)
	case PhaseClosed:
		mustStep(t, tab, id, alice, InputDelete)
	}
	return id
}

// TestStepFollowsLifecycle drives every cell through Table.Step on a real
// session, and checks the phase the session is left in.
func TestStepFollowsLifecycle(t *testing.T) {
	for c, tc := range lifecycleSpec {
		t.Run(tc.name, func(t *testing.T) {
			tab := newTestTable(Config{})
			id := sessionIn(t, tab, c.from)
			to, _, err := tab.Step(id, alice, c.in, t0)
			if to != tc.want.to || !errors.Is(err, tc.want.err) || (err == nil) != (tc.want.err == nil) {
				t.Fatalf("Step(%v in %v) = (%v, %v), want (%v, %v)", c.in, c.from, to, err, tc.want.to, tc.want.err)
			}
			// A ping shows the phase the session was left in: legal in
			// both live phases, ErrNotFound once closed.
			wantAfter := outcome{tc.want.to, nil}
			if tc.want.to == PhaseClosed {
				wantAfter.err = ErrNotFound
			}
			after, _, err := tab.Step(id, alice, InputPing, t0)
			if after != wantAfter.to || !errors.Is(err, wantAfter.err) || (err == nil) != (wantAfter.err == nil) {
				t.Errorf("ping afterwards = (%v, %v), want (%v, %v)", after, err, wantAfter.to, wantAfter.err)
			}
		})
	}
}

// TestDeletedSessionIsGone checks that after DELETE every operation on the
// id answers ErrNotFound, and the table forgot the session.
func TestDeletedSessionIsGone(t *testing.T) {
	tab := newTestTable(Config{})
	id := mustCreate(t, tab, alice, []byte("n1"))
	mustStep(t, tab, id, alice, InputInitialized)
	mustStep(t, tab, id, alice, InputDelete)

	for _, in := range allInputs {
		t.Run(fmt.Sprintf("T-43/%v after DELETE", in), func(t *testing.T) {
			if phase, _, err := tab.Step(id, alice, in, t0); phase != PhaseClosed || !errors.Is(err, ErrNotFound) {
				t.Errorf("Step = (%v, %v), want (closed, ErrNotFound)", phase, err)
			}
		})
	}
	t.Run("T-43/GET with cursor after DELETE", func(t *testing.T) {
		if _, _, err := tab.Poll(id, alice, "g"+firstHandle+"-1", t0); !errors.Is(err, ErrNotFound) {
			t.Errorf("Poll err = %v, want ErrNotFound", err)
		}
	})
	t.Run("T-43/POST event id after DELETE", func(t *testing.T) {
		if _, err := postEventID(tab, id, alice, t0); !errors.Is(err, ErrNotFound) {
			t.Errorf("PostEventID err = %v, want ErrNotFound", err)
		}
	})
	t.Run("T-45/DELETE frees the slot", func(t *testing.T) {
		if n := tab.Len(t0); n != 0 {
			t.Errorf("Len = %d, want 0", n)
		}
	})
}

func TestPhaseString(t *testing.T) {
	for _, tc := range []struct {
		p    Phase
		want string
	}{
		{PhaseInitializing, "initializing"},
		{PhaseOperating, "operating"},
		{PhaseClosed, "closed"},
		{Phase(3), "Phase(3)"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("Phase(%d).String() = %q, want %q", uint8(tc.p), got, tc.want)
		}
	}
}

func TestInputString(t *testing.T) {
	for _, tc := range []struct {
		in   Input
		want string
	}{
		{InputInitialized, "notifications/initialized"},
		{InputPing, "ping"},
		{InputRequest, "request"},
		{InputInitialize, "initialize"},
		{InputPoll, "GET"},
		{InputDelete, "DELETE"},
		{Input(6), "Input(6)"},
	} {
		if got := tc.in.String(); got != tc.want {
			t.Errorf("Input(%d).String() = %q, want %q", uint8(tc.in), got, tc.want)
		}
	}
}

// TestUnknownInputIsRefused checks that an Input outside the enum fails
// closed in every live phase.
func TestUnknownInputIsRefused(t *testing.T) {
	for _, from := range []Phase{PhaseInitializing, PhaseOperating} {
		if to, err := transition(from, Input(6)); to != from || !errors.Is(err, ErrLifecycle) {
			t.Errorf("transition(%v, Input(6)) = (%v, %v), want (%v, ErrLifecycle)", from, to, err, from)
		}
	}
}

// TestTransitionOutsideTheTable: a phase or input the table has no cell
// for is illegal, never a panic.
func TestTransitionOutsideTheTable(t *testing.T) {
	for _, c := range []cell{{PhaseClosed + 1, InputPing}, {Phase(9), InputPing}, {PhaseOperating, Input(9)}, {PhaseInitializing, InputDelete + 1}} {
		if to, err := transition(c.from, c.in); to != c.from || !errors.Is(err, ErrLifecycle) {
			t.Errorf("transition(%v, %v) = (%v, %v), want (%v, ErrLifecycle)", c.from, c.in, to, err, c.from)
		}
	}
}
