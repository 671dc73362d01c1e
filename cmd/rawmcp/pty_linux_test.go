package main

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal: the program writes to tty, the test
// reads what a terminal would show from master.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	var unlock int32
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal(e)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close(); tty.Close() })
	return master, tty
}

// TestProbeProgressOnATerminal: with stderr a terminal, the first thing
// the run writes is its live line, before any check finished (so it
// shows within a moment of the start, however long the checks take),
// redrawn in place and cleared before the report; stdout, a pipe, gets
// the report alone, without marks or colour.
func TestProbeProgressOnATerminal(t *testing.T) {
	s := startServe(t)
	master, tty := openPTY(t)
	cmd := exec.Command(binary, "probe", s.url, "-token", probeAlice, "-only", "HO,PV")
	var stdout strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	shown, _ := bufio.NewReader(master).ReadString(0) // until the program closes the terminal
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v; the terminal showed %q", err, shown)
	}
	draws := strings.Split(shown, "\r\x1b[K")
	if len(draws) < 3 || draws[0] != "" || !strings.HasPrefix(draws[1], "probe: 0/") || draws[len(draws)-1] != "" {
		t.Fatalf("the terminal showed %q: want the live line first, redrawn, cleared at the end", shown)
	}
	if strings.Contains(shown, "\n") {
		t.Errorf("the live line wrote a newline: %q", shown)
	}
	if !strings.Contains(shown, "/14 checks") || !strings.Contains(shown, "; running ") {
		t.Errorf("the live line never showed the checks done of the total and the ones running: %q", shown)
	}
	if strings.ContainsAny(stdout.String(), "\x1b✓×") || !strings.HasSuffix(stdout.String(), "(MUST failed: none)\n") {
		t.Errorf("stdout, a pipe, is the plain report: %q", stdout.String())
	}
}

// TestProbeColourOnATerminal: a report written to a terminal marks and
// colours its verdicts, unless NO_COLOR is set; -q keeps only what did
// not pass.
func TestProbeColourOnATerminal(t *testing.T) {
	s := startServe(t)
	for _, tt := range []struct {
		name   string
		env    []string
		marked bool
	}{
		{"a terminal", nil, true},
		{"a terminal with NO_COLOR", []string{"NO_COLOR=1"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			master, tty := openPTY(t)
			cmd := exec.Command(binary, "probe", s.url, "-token", probeAlice, "-only", "PV,SE-07")
			cmd.Env = append(os.Environ(), tt.env...)
			cmd.Stdout, cmd.Stderr = tty, nil
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			tty.Close()
			shown, _ := bufio.NewReader(master).ReadString(0)
			cmd.Wait()
			marked := strings.Contains(shown, "\x1b[32m✓ pass \x1b[0m PV-01") && strings.Contains(shown, "\x1b[34mi info \x1b[0m PV-04")
			if marked != tt.marked || !tt.marked && strings.ContainsAny(shown, "\x1b✓×") {
				t.Errorf("marked and coloured: %v, want %v:\n%q", marked, tt.marked, shown)
			}
		})
	}
	stdout, _, _ := rawmcp(t, "probe", s.url, "-token", probeAlice, "-only", "PV,SE-07", "-q")
	want := "Skipped (1)\n  Sessions: needs -token2: SE-07\nprobe: 6 pass, 0 fail, 0 warn, 1 skip, 0 error, 1 info (MUST failed: none)\n"
	if stdout != want {
		t.Errorf("-q printed\n%s\nwant\n%s", stdout, want)
	}
}
