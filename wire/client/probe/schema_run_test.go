package probe_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"rawmcp/wire/client/probe"
)

// TestSchemaCheckOnEachRevision: JR-11 checks each answer against the
// schema of the revision it was answered under, says which, and -json
// names the pinned schema files a run used: rawmcp's answers against
// 2025-11-25's, the modern-only reference's against 2026-07-28's, the
// dual-era reference's against both; a modern result missing a required
// member fails, naming the 2026-07-28 definition, the path and the rule.
func TestSchemaCheckOnEachRevision(t *testing.T) {
	const pin = "github.com/modelcontextprotocol/modelcontextprotocol@b0f60ba5409d schema/"
	for _, tt := range []struct {
		name    string
		target  func(t *testing.T) string
		want    probe.Verdict
		says    string
		schemas []string
	}{
		{"rawmcp", func(t *testing.T) string { return startRawmcp(t).Addr }, probe.Pass,
			"against 2025-11-25's schema", []string{pin + "2025-11-25/schema.json"}},
		{"the modern-only reference", func(t *testing.T) string { return startModernRef(t, modernRef{token: alice}) }, probe.Pass,
			"against 2026-07-28's schema", []string{pin + "2026-07-28/schema.json"}},
		{"the dual-era reference", func(t *testing.T) string { return startModernRef(t, modernRef{token: alice, legacy: true}) }, probe.Pass,
			"against 2025-11-25's and", []string{pin + "2025-11-25/schema.json", pin + "2026-07-28/schema.json"}},
		{"the modern-only reference listing a resource without its name", func(t *testing.T) string {
			return startProxy(t, startModernRef(t, modernRef{token: alice}), onMethod("resources/list", replacing(`,"name":"doc"`, "")))
		}, probe.Fail, `ListResourcesResult (2026-07-28): $.result.resources[0]: required: "name" is missing`, []string{pin + "2026-07-28/schema.json"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep := run(t, tt.target(t), probe.Options{Token: alice, Strict: true, Only: []string{"V2", "JR-11"}})
			for _, res := range rep.Results {
				if res.Check.ID == "JR-11" && (res.Verdict != tt.want || !strings.Contains(res.Reason, tt.says)) {
					t.Errorf("JR-11 %s: %s; want %s saying %q", res.Verdict, res.Reason, tt.want, tt.says)
				}
			}
			var doc struct {
				Schemas []string `json:"schemas"`
			}
			var b bytes.Buffer
			if err := rep.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.schemas, doc.Schemas); diff != "" {
				t.Errorf("-json schemas (-want +got):\n%s", diff)
			}
		})
	}
}
