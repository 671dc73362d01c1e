package state

import (
	"bytes"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
)

func TestSessionIDFormat(t *testing.T) {
	tab := newTestTable(Config{})
	id := mustCreate(t, tab, alice)
	t.Run("T-P09/24 random bytes in base64url without padding", func(t *testing.T) {
		if id != firstID {
			t.Errorf("id = %q, want %q", id, firstID)
		}
	})
	t.Run("T-P09/fixed length of 32", func(t *testing.T) {
		if len(id) != SessionIDLen || SessionIDLen != 32 {
			t.Errorf("len(id) = %d, SessionIDLen = %d, want 32", len(id), SessionIDLen)
		}
	})
	t.Run("T-40/only bytes 0x21-0x7E", func(t *testing.T) {
		for i := range len(id) {
			if id[i] < 0x21 || id[i] > 0x7E {
				t.Errorf("byte %d is %#x", i, id[i])
			}
		}
	})
	t.Run("T-P09/the table accepts its own ids", func(t *testing.T) {
		if !ValidSessionID([]byte(id)) {
			t.Error("ValidSessionID(issued id) = false")
		}
	})
}

// TestSessionIDsFromCryptoRand checks ids drawn from crypto/rand: all
// distinct and all well-formed.
func TestSessionIDsFromCryptoRand(t *testing.T) {
	cfg := DefaultConfig()
	tab := NewTable(cfg, rand.Reader)
	seen := map[string]bool{}
	for range cfg.MaxSessions {
		id, _, err := tab.Create(alice, t0)
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		if seen[id] || !ValidSessionID([]byte(id)) {
			t.Errorf("T-39/id %d repeated or malformed", len(seen))
		}
		seen[id] = true
	}
}

func TestValidSessionID(t *testing.T) {
	for _, tc := range []struct {
		name string
		id   string
		want bool
	}{
		{"T-P09/issued shape", firstID, true},
		{"T-P09/all 64 alphabet bytes are allowed", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef", true},
		{"T-P09/digits, dash and underscore", "ghijklmnopqrstuvwxyz0123456789-_", true},
		{"T-P09/one byte short", firstID[:31], false},
		{"T-P09/one byte long", firstID + "A", false},
		{"T-P09/empty", "", false},
		{"T-P09/padding", firstID[:31] + "=", false},
		{"T-P09/standard base64 plus", firstID[:31] + "+", false},
		{"T-P09/standard base64 slash", firstID[:31] + "/", false},
		{"T-P09/dot", firstID[:31] + ".", false},
		{"T-P09/space", firstID[:31] + " ", false},
		{"T-P09/DEL", firstID[:31] + "\x7f", false},
		{"T-P09/NUL", firstID[:31] + "\x00", false},
		{"T-P09/non-ASCII", firstID[:30] + "é", false},
		{"T-P09/UUID", "123e4567-e89b-12d3-a456-426614174000", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ValidSessionID([]byte(tc.id)); got != tc.want {
				t.Errorf("ValidSessionID(%q) = %v, want %v", tc.id, got, tc.want)
			}
		})
	}
}

// TestValidSessionIDByteSweep checks every byte value at one position
// against the base64url alphabet of RFC 4648 §5.
func TestValidSessionIDByteSweep(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	id := []byte(firstID)
	for b := range 256 {
		id[7] = byte(b)
		if got, want := ValidSessionID(id), strings.IndexByte(alphabet, byte(b)) >= 0; got != want {
			t.Errorf("T-P09/byte %#x: ValidSessionID = %v, want %v", b, got, want)
		}
	}
}

func TestRandomSourceFailure(t *testing.T) {
	for _, tc := range []struct {
		name   string
		random func() *Table
	}{
		{"T-71/read error", func() *Table { return NewTable(DefaultConfig(), failingReader{}) }},
		{"T-71/short read: 35 of 36 bytes", func() *Table { return NewTable(DefaultConfig(), bytes.NewReader(make([]byte, 35))) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := tc.random()
			id, _, err := tab.Create(alice, t0)
			if !errors.Is(err, ErrEntropy) || id != "" {
				t.Errorf("Create = (%q, %v), want (\"\", ErrEntropy)", id, err)
			}
			if n := tab.Len(t0); n != 0 {
				t.Errorf("Len = %d, want 0", n)
			}
		})
	}
}

// TestRepeatingRandomSource checks that a source repeating itself cannot
// make two sessions share an id: the second Create fails.
func TestRepeatingRandomSource(t *testing.T) {
	tab := NewTable(DefaultConfig(), bytes.NewReader(make([]byte, 72)))
	id := mustCreate(t, tab, alice)
	if _, _, err := tab.Create(bob, t0); !errors.Is(err, ErrEntropy) {
		t.Errorf("T-39/second Create err = %v, want ErrEntropy", err)
	}
	if _, _, err := tab.Step(id, alice, InputPing, t0); err != nil {
		t.Errorf("first session after the refused Create: %v", err)
	}
}

func TestEventIDFormat(t *testing.T) {
	tab := newTestTable(Config{})
	id := mustCreate(t, tab, alice, []byte("n1"))
	post, err := postEventID(tab, id, alice, t0)
	if err != nil {
		t.Fatal(err)
	}
	batch := mustPoll(t, tab, id, alice, "")
	got := []string{post, batch.PrimingID, batch.Events[0].ID}
	want := []string{"p" + firstHandle + "-1", "g" + firstHandle + "-2", "g" + firstHandle + "-3"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("T-P11/event id %d = %q, want %q", i, got[i], want[i])
		}
	}
	t.Run("T-34/the handle is not part of the session id", func(t *testing.T) {
		if strings.Contains(firstID, firstHandle) || strings.Contains(post, firstID) {
			t.Error("event id and session id share material")
		}
	})
}

func TestFormatEventIDLongest(t *testing.T) {
	got := formatEventID(getStreamKind, firstHandle, 1<<64-1)
	want := "g" + firstHandle + "-18446744073709551615"
	if got != want || len(got) != maxEventIDLen {
		t.Errorf("S-P01/longest id = %q (%d bytes), want %q (%d bytes)", got, len(got), want, maxEventIDLen)
	}
	if maxEventIDLen > 128 {
		t.Errorf("S-P01/maxEventIDLen = %d, over the cap of 128", maxEventIDLen)
	}
}

func TestParseEventID(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want eventID
		ok   bool
	}{
		{"T-P11/GET stream id", "g" + firstHandle + "-7", eventID{'g', firstHandle, 7}, true},
		{"T-P11/POST stream id", "p" + firstHandle + "-12", eventID{'p', firstHandle, 12}, true},
		{"T-P11/handle holding the separator", "g" + secondHandle + "-1", eventID{'g', secondHandle, 1}, true},
		{"S-P01/largest sequence number", "g" + firstHandle + "-18446744073709551615", eventID{'g', firstHandle, 1<<64 - 1}, true},
		{"T-P11/sequence number overflows", "g" + firstHandle + "-18446744073709551616", eventID{}, false},
		{"S-P01/one byte past the longest", "g" + firstHandle + "-184467440737095516150", eventID{}, false},
		{"T-P11/sequence number zero", "g" + firstHandle + "-0", eventID{}, false},
		{"T-P11/leading zero", "g" + firstHandle + "-07", eventID{}, false},
		{"T-P11/plus sign", "g" + firstHandle + "-+7", eventID{}, false},
		{"T-P11/no sequence number", "g" + firstHandle + "-", eventID{}, false},
		{"T-P11/letter in the sequence number", "g" + firstHandle + "-7a", eventID{}, false},
		{"T-P11/unknown stream kind", "x" + firstHandle + "-7", eventID{}, false},
		{"T-P11/upper-case stream kind", "G" + firstHandle + "-7", eventID{}, false},
		{"T-P11/short handle", "g" + firstHandle[:15] + "-7", eventID{}, false},
		{"T-P11/long handle", "g" + firstHandle + "A-7", eventID{}, false},
		{"T-P11/handle byte outside base64url", "g" + firstHandle[:15] + "+-7", eventID{}, false},
		{"T-P11/wrong separator", "g" + firstHandle + "_7", eventID{}, false},
		{"T-P11/trailing space", "g" + firstHandle + "-7 ", eventID{}, false},
		{"T-P11/session id as cursor", firstID, eventID{}, false},
		{"T-P11/empty", "", eventID{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseEventID(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Errorf("parseEventID(%q) = (%+v, %v), want (%+v, %v)", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestAppendPostEventID: the id goes after what dst holds; a refused
// lookup leaves dst as it was.
func TestAppendPostEventID(t *testing.T) {
	tab := newTestTable(Config{})
	id := mustCreate(t, tab, alice, []byte("n1"))
	got, _, err := tab.AppendPostEventID([]byte("id: "), id, alice, t0)
	if want := "id: p" + firstHandle + "-1"; err != nil || string(got) != want {
		t.Errorf("T-P11/AppendPostEventID = (%q, %v), want (%q, nil)", got, err, want)
	}
	got, _, err = tab.AppendPostEventID([]byte("id: "), id, bob, t0)
	if !errors.Is(err, ErrNotFound) || string(got) != "id: " {
		t.Errorf("T-43/another owner: AppendPostEventID = (%q, %v), want (%q, ErrNotFound)", got, err, "id: ")
	}
}

// TestWarmPathAllocs: what the server asks of the table on every POST of
// a live session allocates nothing.
func TestWarmPathAllocs(t *testing.T) {
	tab := newTestTable(Config{})
	id := mustCreate(t, tab, alice, []byte("n1"))
	if _, _, err := tab.Step(id, alice, InputInitialized, t0); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, maxEventIDLen)
	allocs := testing.AllocsPerRun(100, func() {
		if _, _, err := tab.Check(id, alice, t0); err != nil {
			t.Fatal(err)
		}
		if _, _, err := tab.Step(id, alice, InputRequest, t0); err != nil {
			t.Fatal(err)
		}
		if _, _, err := tab.AppendPostEventID(buf[:0], id, alice, t0); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Check + Step + AppendPostEventID allocated %v times per run, want 0", allocs)
	}
}
