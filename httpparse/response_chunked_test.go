package httpparse

import (
	"errors"
	"testing"
)

// TestChunkSize: a chunk line (RFC 9112 §7.1) read alone, as the client
// reads a body still arriving; the size may reach max and not pass it.
func TestChunkSize(t *testing.T) {
	tests := []struct {
		name string
		line string
		max  int
		want int
		fail Reason
	}{
		{"a size", "1a", 100, 26, ""},
		{"uppercase hex", "1A", 100, 26, ""},
		{"the last chunk", "000", 100, 0, ""},
		{"an extension", "5;name=value", 100, 5, ""},
		{"a quoted extension value", `5 ; n="a b"`, 100, 5, ""},
		{"a size at max", "10", 16, 16, ""},
		{"a size one past max", "11", 16, 0, RespReasonBodyTooLarge},
		{"no digit", ";x", 100, 0, RespReasonBadChunkSize},
		{"an empty line", "", 100, 0, RespReasonBadChunkSize},
		{"trailing whitespace alone", "5 ", 100, 0, RespReasonBadChunkExtension},
		{"a byte that is neither hex nor an extension", "5x", 100, 0, RespReasonBadChunkExtension},
		{"many digits never overflow", "fffffffffffffffffffffffff", 1 << 30, 0, RespReasonBodyTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ChunkSize([]byte(tt.line), tt.max)
			var pe *Error
			switch {
			case tt.fail == "" && err != nil:
				t.Fatalf("ChunkSize(%q) failed: %v", tt.line, err)
			case tt.fail != "" && (!errors.As(err, &pe) || pe.Reason != tt.fail):
				t.Fatalf("ChunkSize(%q) = %d, %v, want %q", tt.line, got, err, tt.fail)
			case tt.fail == "" && got != tt.want:
				t.Errorf("ChunkSize(%q) = %d, want %d", tt.line, got, tt.want)
			}
		})
	}
}
