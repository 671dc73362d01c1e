package policy

import (
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentRevokeAndRevision runs Authenticate from several goroutines
// while others Revoke, SetRevision and Add (run it under -race). Every
// answer must be a clean accept or a 401 invalid_token, and once the
// writers are done the final state must hold.
func TestConcurrentRevokeAndRevision(t *testing.T) {
	const subjects, perSubject, rounds = 4, 4, 50
	p := newTestPolicy(t)
	token := func(s, i int) string { return fmt.Sprintf("tok-conc-%d-%d-Hq3Zm8", s, i) }
	id := func(s, i int) string { return fmt.Sprintf("tid-%d-%d", s, i) }
	for s := range subjects {
		for i := range perSubject {
			rec := aliceRecord()
			rec.TokenID, rec.Subject = id(s, i), fmt.Sprintf("subject-%d", s)
			if err := p.Add(token(s, i), rec); err != nil {
				t.Fatal(err)
			}
		}
	}

	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 4 {
		wg.Go(func() {
			for range rounds {
				for s := range subjects {
					for i := range perSubject {
						pr, denial := p.AuthenticateRemembered(nil, []byte("Bearer "+token(s, i)), true, "ping", t0)
						switch {
						case denial == nil && pr.Subject == fmt.Sprintf("subject-%d", s):
						case denial != nil && denial.Status == 401 && denial.Challenge == invalidTokenConnect &&
							(denial.Detail == DetailRevoked || denial.Detail == DetailRevision):
						default:
							select {
							case errs <- fmt.Sprintf("token %d-%d: %+v, %+v", s, i, pr, denial):
							default:
							}
						}
					}
				}
			}
		})
	}
	wg.Go(func() { // subject 0 loses every token one by one
		for i := range perSubject {
			p.Revoke(id(0, i))
		}
	})
	wg.Go(func() { // subject 1's authorization changes back and forth, ending moved on
		for r := range rounds {
			p.SetRevision("subject-1", 7+uint64(r%2))
		}
		p.SetRevision("subject-1", 8)
	})
	wg.Go(func() { // new tokens arrive for a fresh subject
		for i := range rounds {
			rec := aliceRecord()
			rec.TokenID, rec.Subject = fmt.Sprintf("tid-new-%d", i), "newcomer"
			if err := p.Add(fmt.Sprintf("tok-new-%d-Wc5Rn2", i), rec); err != nil {
				select {
				case errs <- err.Error():
				default:
				}
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("A-P05/concurrent answer: %s", e)
	}

	for _, c := range []struct {
		name   string
		token  string
		detail string // "" = accepted
	}{
		{"A-P05/a revoked token stays revoked", token(0, 3), DetailRevoked},
		{"A-11/a token of the moved-on subject is stale", token(1, 0), DetailRevision},
		{"A-11/an untouched subject still works", token(2, 2), ""},
		{"A-P05/a token added during the run works", "tok-new-49-Wc5Rn2", ""},
	} {
		_, denial := p.AuthenticateRemembered(nil, []byte("Bearer "+c.token), true, "ping", t0)
		if c.detail == "" && denial != nil || c.detail != "" && (denial == nil || denial.Detail != c.detail) {
			t.Errorf("%s: Authenticate = %+v, want detail %q", c.name, denial, c.detail)
		}
	}
}
