package policy

import "testing"

// BenchmarkAuthenticate is the bearer step of a keep-alive request: the
// token hashed and looked up, or found through the connection's memory.
func BenchmarkAuthenticate(b *testing.B) {
	p := newTestPolicy(b)
	if err := p.Add(tokAlice, aliceRecord()); err != nil {
		b.Fatal(err)
	}
	header := []byte("Bearer " + tokAlice)
	var mem Remembered
	for _, c := range []struct {
		name string
		mem  *Remembered
	}{{"hashed", nil}, {"remembered", &mem}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				pr, d := p.AuthenticateRemembered(c.mem, header, true, "ping", t0)
				if d != nil || p.Authorize(pr, "ping") != nil {
					b.Fatal("refused")
				}
			}
		})
	}
}
