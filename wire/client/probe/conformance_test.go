package probe

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The official MCP conformance suite's server-side checks, mapped to the
// probe's: for each check id the suite can emit at suiteVersion (the list
// testdata/conformance-checks.txt, extracted from the suite's own code by
// cmd/rawmcp/testdata/conformance-checks.sh), the probe checks that judge
// the same thing, or why none does. A Go table rather than a Markdown one
// parsed back: the reasons shared by dozens of ids are constants, the test
// reads the probe ids against the catalogue itself, and CONFORMANCE.md is
// rendered from it (with each id's scenario from the list), so the
// document cannot drift from either.

// suiteVersion is the suite's version the map and the list are of.
const suiteVersion = "0.2.0-alpha.12"

// suiteCheck is one of the suite's check ids and what the probe has for
// it: Probe, the checks that judge the same thing (Why then says where
// they differ, if they do); or no Probe and Why, the reason none applies.
type suiteCheck struct {
	ID    string
	Probe []string
	Why   string
}

// Why none applies, where many ids share the reason.
const (
	whyHarness   = "the suite's own record (a setup step that failed, a crashed scenario, a logged exchange): no finding about the server"
	whyExtension = "an extension (tasks, skills), which SEP-1730 keeps out of every conformance tier: " +
		"the probe judges the core revisions"
	whyAuthServer = "judges an authorization server, which the specification leaves out of its scope: " +
		"the probe judges the resource server (the AU group, V2-30)"
	whyMRTR = "a multi-round-trip result (InputRequiredResult) of the suite's fixture tools " +
		"(test_input_required_result_*): what a tool answers is the feature's, not the transport's"
	whyFixtureContent = "what the suite's fixture %s returns: a feature's content, not the transport or its boundary"
	whyFixtureNeeded  = "needs the suite's fixture %s, which a server in general does not offer: not testable from outside"
	whySessionless    = "the suite's note that the server issued no session id: the probe's session checks skip with the same reason (needs sessions)"
)

func fixture(what string) string { return fmt.Sprintf(whyFixtureContent, what) }
func needs(what string) string   { return fmt.Sprintf(whyFixtureNeeded, what) }

// judged is a suite check the probe checks judge; apart is one none does.
func judged(id, why string, probe ...string) suiteCheck {
	return suiteCheck{ID: id, Probe: probe, Why: why}
}
func apart(id, why string) suiteCheck { return suiteCheck{ID: id, Why: why} }

// extension are the ids of the suite's extension scenarios, all apart.
func extension(ids ...string) []suiteCheck {
	var out []suiteCheck
	for _, id := range ids {
		out = append(out, apart(id, whyExtension))
	}
	return out
}

var suiteMap = slices.Concat([]suiteCheck{
	// server-initialize, server-session-lifecycle (2025-11-25 and before)
	judged("server-initialize", "", "PRE-01", "PV-05"),
	judged("server-session-id-visible-ascii", "", "PRE-02"),
	judged("server-session-initialized-accepted", "", "MM-06"),
	judged("server-session-delete-accepted", "", "SE-03"),
	judged("server-session-terminated-returns-404", "", "SE-04"),
	apart("server-session-lifecycle-error", whyHarness),
	apart("server-session-lifecycle-skipped", whySessionless),

	// server-stateless (2026-07-28)
	judged("sep-2575-server-implements-discover", "", "V2-01"),
	judged("sep-2575-server-identifies-in-result-meta", "V2-02 reads server/discover's _meta; the suite reads the same result", "V2-02"),
	judged("sep-2575-discover-capabilities-match-handlers", "the suite compares tools alone; V2-33 tools, prompts and resources", "V2-33"),
	judged("sep-2575-server-declares-prompts-in-discover", "", "V2-33"),
	judged("sep-2575-request-meta-invalid-missing-meta", "", "V2-07"),
	judged("sep-2575-request-meta-invalid-missing-protocol-version", "", "V2-32"),
	judged("sep-2575-request-meta-invalid-missing-client-capabilities", "", "V2-08"),
	judged("sep-2575-http-server-meta-invalid-400", "", "V2-07", "V2-08", "V2-32"),
	judged("sep-2575-request-meta-client-info-optional", "", "V2-09"),
	judged("sep-2575-http-server-header-mismatch-400", "the suite's _meta names v999.0.0, V2-03's 2025-11-25; a -32022 there fails the suite and warns in V2-03 (the spec orders no precedence)", "V2-03"),
	judged("sep-2575-server-unsupported-version-error", "the suite sends v999.0.0 and does not assert the code; V2-05 and V2-06 send 2099-12-31 and 1900-01-01 and want -32022", "V2-05", "V2-06"),
	judged("sep-2575-http-server-unsupported-version-400", "", "V2-05", "V2-06"),
	judged("sep-2575-http-server-method-not-found-404", "", "V2-18"),
	judged("sep-2575-http-server-method-not-found-404-initialize", "", "V2-19"),
	judged("sep-2575-http-server-method-not-found-404-ping", "", "V2-19"),
	judged("sep-2575-http-server-method-not-found-404-logging-setlevel", "", "V2-19"),
	judged("sep-2575-http-server-method-not-found-404-resources-subscribe", "", "V2-19"),
	judged("sep-2575-http-server-method-not-found-404-resources-unsubscribe", "", "V2-19"),
	judged("sep-2575-http-server-error-jsonrpc-id", "every V2 refusal is judged with the request's id echoed; these are the suite's requests",
		"V2-03", "V2-05", "V2-07", "V2-08", "V2-18", "V2-19", "V2-32"),
	judged("sep-2575-http-server-no-independent-requests-on-stream", "the suite provokes one with its fixture tool test_streaming_elicitation; V2-28 reads every stream the V2 checks got", "V2-28"),
	judged("sep-2575-server-no-log-without-loglevel", "the suite provokes a log with its fixture tool test_logging_tool; V2-28 reads every stream the V2 checks got", "V2-28"),
	judged("sep-2575-server-sends-subscription-ack", "", "V2-29"),
	judged("sep-2575-server-tags-subscription-id", "", "V2-29"),
	judged("sep-2575-server-honors-notification-filter", "the suite makes the tools change with its fixture tool test_trigger_tool_change; V2-29 reads what comes in 1.5 s", "V2-29"),
	apart("sep-2575-server-sends-tools-list-changed-on-subscription", needs("tool test_trigger_tool_change (a call that changes the tools)")),
	apart("sep-2575-server-sends-prompts-list-changed-on-subscription", needs("tool test_trigger_tool_change (a call that changes the prompts)")),
	apart("sep-2575-server-rejects-undeclared-capability", needs("tool test_missing_capability (a tool that requires a client capability)")),
	apart("sep-2575-missing-capability-http-400", needs("tool test_missing_capability (a tool that requires a client capability)")),

	// The features, 2025-06-18 onward: what the fixture tools, resources
	// and prompts give; where the suite checks only a result's shape, the
	// schema check judges it.
	apart("logging-set-level", "logging/setLevel, a 2025-11-25 feature behind the transport (2026-07-28 removed it: V2-19)"),
	judged("ping", "the probe pings on a session throughout and needs the result (RS-04, DP-09); no check pings alone", "RS-04", "DP-09"),
	apart("completion-complete", fixture("prompt test_prompt_with_arguments' completions")),
	judged("tools-list", "the schema requires a name and an inputSchema; the suite also wants a description, which the schema makes optional", "JR-11", "V2-27"),
	judged("tools-list-deterministic-order", "", "V2-35"),
	apart("tools-name-format", "a naming SHOULD of the tool definitions a server offers, not of the transport"),
	apart("tools-call-simple-text", fixture("tool test_simple_text")),
	apart("tools-call-image", fixture("tool test_image_content")),
	apart("tools-call-audio", fixture("tool test_audio_content")),
	apart("tools-call-embedded-resource", fixture("tool test_embedded_resource")),
	apart("tools-call-mixed-content", fixture("tool test_multiple_content_types")),
	apart("tools-call-with-logging", fixture("tool test_tool_with_logging")),
	apart("tools-call-error", fixture("tool test_error_handling")),
	apart("tools-call-with-progress", fixture("tool test_tool_with_progress")),
	apart("tools-call-sampling", fixture("tool test_sampling, which asks the client to sample,")),
	apart("tools-call-elicitation", fixture("tool test_elicitation, which asks the client,")),
	apart("json-schema-2020-12-tool-found", fixture("tool json_schema_2020_12_tool")),
	apart("json-schema-2020-12-$schema", fixture("tool json_schema_2020_12_tool's input schema")),
	apart("json-schema-2020-12-$defs", fixture("tool json_schema_2020_12_tool's input schema")),
	apart("json-schema-2020-12-additionalProperties", fixture("tool json_schema_2020_12_tool's input schema")),
	apart("json-schema-2020-12-error", whyHarness),
	apart("sep-2106-anchor-keyword-preserved", fixture("tool json_schema_2020_12_tool's input schema")),
	apart("sep-2106-composition-keywords-preserved", fixture("tool json_schema_2020_12_tool's input schema")),
	apart("sep-2106-conditional-keywords-preserved", fixture("tool json_schema_2020_12_tool's input schema")),
	judged("resources-list", "the schema requires each resource's uri and name, as the suite does", "JR-11"),
	apart("resources-read-text", fixture("resource test://static-text")),
	apart("resources-read-binary", fixture("resource test://static-binary")),
	apart("resources-templates-read", fixture("resource template test://template/{id}/data")),
	apart("resources-subscribe", "resources/subscribe, a 2025-11-25 feature behind the transport (2026-07-28 removed it: V2-19)"),
	apart("resources-unsubscribe", "resources/unsubscribe, a 2025-11-25 feature behind the transport (2026-07-28 removed it: V2-19)"),
	judged("prompts-list", "the schema requires each prompt's name; the suite also wants a description, which the schema makes optional", "JR-11"),
	apart("prompts-get-simple", fixture("prompt test_simple_prompt")),
	apart("prompts-get-with-args", fixture("prompt test_prompt_with_arguments")),
	apart("prompts-get-embedded-resource", fixture("prompt test_prompt_with_embedded_resource")),
	apart("prompts-get-with-image", fixture("prompt test_prompt_with_image")),

	// Elicitation and the 2025-11-25 SSE polling: server-to-client
	// requests and stream resumption driven by fixture tools.
	apart("elicitation-sep1034-general", fixture("tool test_elicitation_sep1034_defaults")),
	apart("elicitation-sep1034-string-default", fixture("tool test_elicitation_sep1034_defaults")),
	apart("elicitation-sep1034-integer-default", fixture("tool test_elicitation_sep1034_defaults")),
	apart("elicitation-sep1034-number-default", fixture("tool test_elicitation_sep1034_defaults")),
	apart("elicitation-sep1034-enum-default", fixture("tool test_elicitation_sep1034_defaults")),
	apart("elicitation-sep1034-boolean-default", fixture("tool test_elicitation_sep1034_defaults")),
	apart("elicitation-sep1330-general", fixture("tool test_elicitation_sep1330_enums")),
	apart("elicitation-sep1330-untitled-single", fixture("tool test_elicitation_sep1330_enums")),
	apart("elicitation-sep1330-titled-single", fixture("tool test_elicitation_sep1330_enums")),
	apart("elicitation-sep1330-legacy-enumnames", fixture("tool test_elicitation_sep1330_enums")),
	apart("elicitation-sep1330-untitled-multi", fixture("tool test_elicitation_sep1330_enums")),
	apart("elicitation-sep1330-titled-multi", fixture("tool test_elicitation_sep1330_enums")),
	apart("server-sse-test-reconnection-tool", needs("tool test_reconnection (a call whose stream the server closes mid-call)")),
	apart("server-sse-post-request", needs("tool test_reconnection (a call whose stream the server closes mid-call)")),
	apart("server-sse-polling-stream", needs("tool test_reconnection (a call whose stream the server closes mid-call)")),
	apart("server-sse-disconnect-resume", needs("tool test_reconnection (a call whose stream the server closes mid-call)")),
	judged("server-sse-priming-event", "the suite reads its fixture tool's stream; DP-07 times the first bytes of a GET or list stream", "DP-07"),
	judged("server-sse-retry-field", "the suite reads its fixture tool's stream; DP-08 wants retry before a GET stream is cut", "DP-08"),
	apart("server-sse-content-type", whyHarness),
	apart("server-sse-polling-session", whySessionless),
	apart("server-sse-polling-error", whyHarness),
	apart("incoming-response", whyHarness),
	apart("incoming-sse-event", whyHarness),
	apart("outgoing-request", whyHarness),
	apart("stream-closed", whyHarness),
	judged("server-accepts-multiple-post-streams", "", "RS-04", "JR-03"),
	judged("server-sse-streams-functional", "RS-04 wants a result from each of its three; the suite reads the first event of those that stream", "RS-04"),
	apart("server-sse-multiple-streams-session", whySessionless),
	apart("server-sse-multiple-streams-error", whyHarness),

	// sep-2164-resource-not-found (2026-07-28)
	judged("sep-2164-error-code", "the suite grades a code other than -32602 as a warning; the specification's sentence is a MUST", "V2-36"),
	judged("sep-2164-no-empty-contents", "", "V2-36"),
	apart("sep-2164-data-uri", "the specification shows data.uri only in an example, and no sentence asks for it: nothing to judge (V2-36 reads the same answer)"),

	// dns-rebinding-protection
	judged("localhost-host-rebinding-rejected", "the suite sends a foreign Host and Origin together and accepts any 4xx; the probe sends each alone: Origin 403 (MUST), Host a 4xx (hardening)",
		"HO-01", "HO-02", "V2-24"),
	judged("localhost-host-valid-accepted", "", "HO-05"),

	// caching (2026-07-28)
	judged("sep-2549-tools-list-caching-hints", "", "V2-27"),
	judged("sep-2549-prompts-list-caching-hints", "", "V2-34"),
	judged("sep-2549-resources-list-caching-hints", "", "V2-34"),
	judged("sep-2549-resources-templates-list-caching-hints", "", "V2-34"),
	judged("sep-2549-resources-read-caching-hints", "", "V2-34"),
	judged("sep-2549-ttl-non-negative", "V2-01 also reads server/discover's, which the suite does not", "V2-01", "V2-27", "V2-34"),
	judged("sep-2549-cache-scope-valid", "V2-01 also reads server/discover's, which the suite does not", "V2-01", "V2-27", "V2-34"),
	apart("sep-2549-caching-connection", whyHarness),

	// http-header-validation, http-custom-header-server-validation (2026-07-28)
	judged("sep-2243-server-reject-invalid-headers", "", "V2-10", "V2-11", "V2-12", "V2-14", "V2-15"),
	judged("sep-2243-server-reject-error-code", "the suite grades a 400 without -32020 as a warning; the specification's sentence is a MUST",
		"V2-10", "V2-11", "V2-12", "V2-14", "V2-15"),
	judged("sep-2243-header-name-case-insensitive", "", "V2-13"),
	judged("sep-2243-server-accepts-whitespace-header-value", "", "V2-17"),
	apart("sep-2243-server-standard-setup", whyHarness),
	judged("sep-2243-server-decode-base64", "", "V2-37"),
	judged("sep-2243-server-reject-invalid-param-chars", "", "V2-37"),
	judged("sep-2243-server-reject-param-mismatch", "", "V2-37"),
	judged("sep-2243-server-validate-param-match", "", "V2-37"),
	judged("sep-2243-server-no-xmcp-tool", "V2-37 skips with the same reason", "V2-37"),
	judged("sep-2243-server-no-string-param", "V2-37 skips with the same reason", "V2-37"),
	apart("sep-2243-server-custom-setup", whyHarness),

	// input-required-result-* (2026-07-28)
	apart("sep-2322-elicitation-incomplete", whyMRTR),
	apart("sep-2322-elicitation-complete", whyMRTR),
	apart("sep-2322-sampling-incomplete", whyMRTR),
	apart("sep-2322-sampling-complete", whyMRTR),
	apart("sep-2322-list-roots-incomplete", whyMRTR),
	apart("sep-2322-list-roots-complete", whyMRTR),
	apart("sep-2322-request-state-incomplete", whyMRTR),
	apart("sep-2322-request-state-complete", whyMRTR),
	apart("sep-2322-multiple-inputs-incomplete", whyMRTR),
	apart("sep-2322-multiple-inputs-complete", whyMRTR),
	apart("sep-2322-multi-round-r1", whyMRTR),
	apart("sep-2322-multi-round-r2", whyMRTR),
	apart("sep-2322-multi-round-r3", whyMRTR),
	apart("sep-2322-missing-response-rerequests", whyMRTR),
	apart("sep-2322-non-tool-incomplete", whyMRTR),
	apart("sep-2322-non-tool-complete", whyMRTR),
	judged("sep-2322-result-type-included", "the suite reads its fixture tool's InputRequiredResult; JR-11 wants resultType on every 2026-07-28 result the run gets", "JR-11"),
	judged("sep-2322-not-on-unsupported-requests", "both read tools/list and prompts/list, whose resultType must be complete", "V2-27", "V2-34"),
	apart("sep-2322-reject-tampered-state", whyMRTR),
	apart("sep-2322-respect-client-capabilities", whyMRTR),
	apart("sep-2322-ignore-unexpected-params", whyMRTR),
	apart("sep-2322-error-on-protocol-error", whyMRTR),
	apart("sep-2322-validate-input-responses", whyMRTR),

	// The runners' own checks, added to every scenario.
	judged("wire-schema-valid", "the suite also asserts format (uri, uri-template), which the 2020-12 dialect the schemas declare leaves an annotation", "JR-11"),
	apart("wire-schema-harness-error", "the suite's own messages against the schema: a finding about the suite"),
	apart("scenario-timeout", "the suite's deadline per scenario: the probe bounds each exchange (-timeout) and the run (-budget), and an answer that does not come is a check's error, not a verdict"),
	apart("<scenario>", whyHarness),

	// The authorization server scenarios.
	apart("authorization-server-metadata", whyAuthServer),
	apart("authorization-server-metadata-cimd", whyAuthServer),
	apart("authorization-code-grant", whyAuthServer),
},
	extension(
		"sep-2640-capability-directory-read-flag", "sep-2640-directory-read-invalid-params", "sep-2640-directory-read-method-registered",
		"sep-2640-directory-read-pagination", "sep-2640-directory-read-result-resources-shape", "sep-2640-directory-read-subdir-mimetype",
		"sep-2640-authority-reg-name", "sep-2640-capability-commits-to-methods", "sep-2640-capability-declaration-inline",
		"sep-2640-capability-empty-object", "sep-2640-capability-requires-resources", "sep-2640-entry-frontmatter-identical",
		"sep-2640-entry-frontmatter-required", "sep-2640-entry-resources-required", "sep-2640-entry-uri-matches-frontmatter-name",
		"sep-2640-entry-uri-required", "sep-2640-limit-resources-per-skill", "sep-2640-limit-total-size", "sep-2640-metadata-reserved-prefix",
		"sep-2640-name-naming-rules", "sep-2640-names-should-be-unique", "sep-2640-resources-complete", "sep-2640-resources-digest-format",
		"sep-2640-resources-size-required", "sep-2640-resources-uri-within-skill", "sep-2640-skill-uri-scheme", "sep-2640-skillmd-frontmatter",
		"sep-2640-skillmd-required", "sep-2640-skills-get-cache-attributes", "sep-2640-skills-get-entry-shape", "sep-2640-skills-get-implemented",
		"sep-2640-skills-get-no-cursor", "sep-2640-skills-get-unknown-uri-invalid-params", "sep-2640-skills-list-cache-attributes",
		"sep-2640-skills-list-entry-atomic", "sep-2640-skills-list-implemented", "sep-2640-skills-list-pagination",
		"sep-2640-final-segment-equals-name", "sep-2640-meta-prefix", "sep-2640-skillmd-metadata-description", "sep-2640-skillmd-metadata-name",
		"sep-2640-skillmd-mimetype",
		"sep-2663-cancel-ack-empty-result", "sep-2663-result-type-task-on-create", "sep-2663-tasks-get-status-completed",
		"sep-2663-tasks-get-status-failed", "sep-2663-tasks-get-status-working", "sep-2663-tool-error-uses-completed-status",
		"tasks-cancel-terminal-idempotent-ack", "tasks-lifecycle-bootstrap", "tasks-sync-tool-call",
		"sep-2663-server-rejects-undeclared-client", "sep-2663-tasks-methods-non-declaring", "tasks-capability-bootstrap",
		"tasks-extension-advertised", "tasks-per-request-meta-opt-in",
		"tasks-no-early-ttl-expiry", "tasks-no-related-task-meta-on-inlined-result", "tasks-wire-field-renames", "tasks-wire-fields-bootstrap",
		"tasks-create-result-no-request-state", "tasks-get-detailed-no-request-state", "tasks-request-state-bootstrap",
		"tasks-request-state-removal-setup",
		"sep-2663-tasks-get-status-input-required", "tasks-mrtr-input-bootstrap", "tasks-mrtr-partial-fulfillment",
		"tasks-mrtr-tasks-update-resumes",
		"sep-2663-routing-headers-accepted-on-tasks-get", "sep-2663-server-rejects-mismatched-mcp-name-on-tasks-get",
		"tasks-headers-bootstrap", "tasks-headers-reject-mismatched-method", "tasks-headers-tolerate-mcp-method-on-tools-call",
		"sep-2663-durable-create-strong-consistency", "sep-2663-legacy-task-param-ignored", "sep-2663-tasks-get-invalid-task-id-32602",
		"sep-2663-tasks-result-removed-method-not-found", "tasks-dispatch-bootstrap", "tasks-immediate-result-shortcut",
		"tasks-removed-tasks-list", "tasks-result-type-complete-on-non-task-responses", "tasks-server-directed-creation-no-hint",
		"tasks-status-notifications",
		"sep-2663-server-returns-missing-capability-data-shape", "sep-2663-server-returns-missing-capability-when-required",
		"tasks-required-error-bootstrap",
		"sep-2663-mrtr-synchronous-before-task-creation",
	))

// suiteScenario is one scenario of the list: its name, the role the
// suite gives it (server, authorization, runner), the revisions it
// applies to, and its check ids.
type suiteScenario struct {
	name, role, revisions string
	checks                []string
}

// readSuiteList reads testdata/conformance-checks.txt: its version (from
// the header) and its scenarios in order.
func readSuiteList(t *testing.T) (string, []suiteScenario) {
	t.Helper()
	f, err := os.Open("testdata/conformance-checks.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var version string
	var out []suiteScenario
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "# @modelcontextprotocol/conformance@"):
			version = strings.TrimSuffix(strings.TrimPrefix(fields[1], "@modelcontextprotocol/conformance@"), ":")
		case strings.HasPrefix(line, "#"):
		case len(fields) == 4 && fields[0] == "scenario":
			out = append(out, suiteScenario{name: fields[1], role: fields[2], revisions: fields[3]})
		case len(fields) == 3 && fields[0] == "check" && len(out) > 0 && out[len(out)-1].name == fields[1]:
			out[len(out)-1].checks = append(out[len(out)-1].checks, fields[2])
		default:
			t.Fatalf("testdata/conformance-checks.txt: a line that is no scenario or check of the one above: %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return version, out
}

// TestConformanceMapCoversTheSuite: every server-side check id of the
// suite's list is mapped to probe checks or explained, every probe check
// named is in the catalogue, and no entry names an id the list lacks.
func TestConformanceMapCoversTheSuite(t *testing.T) {
	version, scenarios := readSuiteList(t)
	if version != suiteVersion {
		t.Fatalf("the list is of the suite at %q, the map of %q: review the map against the new list", version, suiteVersion)
	}
	listed := map[string]bool{}
	for _, s := range scenarios {
		for _, id := range s.checks {
			listed[id] = true
		}
	}
	inCatalogue := map[string]bool{}
	for _, c := range catalogue {
		inCatalogue[c.ID] = true
	}
	mapped := map[string]bool{}
	for _, e := range suiteMap {
		if mapped[e.ID] {
			t.Errorf("%s is mapped twice", e.ID)
		}
		mapped[e.ID] = true
		if !listed[e.ID] {
			t.Errorf("%s is mapped but the suite's list (%s) has no such check", e.ID, suiteVersion)
		}
		if len(e.Probe) == 0 && e.Why == "" {
			t.Errorf("%s names no probe check and says no reason", e.ID)
		}
		for _, id := range e.Probe {
			if !inCatalogue[id] {
				t.Errorf("%s is mapped to %s, which is no check of the catalogue", e.ID, id)
			}
		}
	}
	for id := range listed {
		if !mapped[id] {
			t.Errorf("the suite's %s is neither mapped to probe checks nor explained", id)
		}
	}
}

// writeConformanceMarkdown renders CONFORMANCE.md: the map by scenario,
// in the list's order.
func writeConformanceMarkdown(scenarios []suiteScenario) string {
	byID := map[string]suiteCheck{}
	for _, e := range suiteMap {
		byID[e.ID] = e
	}
	var b strings.Builder
	fmt.Fprintf(&b, `# rawmcp probe and the official conformance suite

Every server-side check the official MCP conformance suite
(`+"`@modelcontextprotocol/conformance@%s`"+`) can emit, with the probe checks of
[CHECKS.md](CHECKS.md) that judge the same thing, or why none does. The suite's ids are read
from its own published code by `+"`cmd/rawmcp/testdata/conformance-checks.sh`"+` into
`+"`testdata/conformance-checks.txt`"+`; the map is the table `+"`suiteMap`"+` in
`+"`conformance_test.go`"+`, and `+"`TestConformanceMapCoversTheSuite`"+` fails when an id of the
list is neither mapped nor explained, a probe check named is not in the catalogue, or an entry
names an id the list lacks.

This file is generated from them; do not edit it. Run
`+"`go test ./wire/client/probe -run TestConformanceMarkdownIsCurrent -update`"+`, and a test fails
while it is stale.

A scenario's revisions are the ones the suite runs it at; "runner" rows are the checks the
suite's server and authorization commands add to every scenario. Where both judge a thing, the
last column says where they differ, if they do.
`, suiteVersion)
	for _, s := range scenarios {
		fmt.Fprintf(&b, "\n## `%s` (%s, %s)\n\n| suite check | probe | why none, or where they differ |\n|---|---|---|\n", s.name, s.role, strings.ReplaceAll(s.revisions, ",", ", "))
		for _, id := range s.checks {
			e := byID[id]
			probe := "-"
			if len(e.Probe) > 0 {
				probe = strings.Join(e.Probe, ", ")
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", id, probe, cell(e.Why))
		}
	}
	return b.String()
}

// TestConformanceMarkdownIsCurrent: the committed CONFORMANCE.md is what
// the map and the list render; -update rewrites it.
func TestConformanceMarkdownIsCurrent(t *testing.T) {
	_, scenarios := readSuiteList(t)
	got := writeConformanceMarkdown(scenarios)
	if *update {
		if err := os.WriteFile("CONFORMANCE.md", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile("CONFORMANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(committed), got); diff != "" {
		t.Errorf("CONFORMANCE.md is stale; regenerate it with go test ./wire/client/probe -run TestConformanceMarkdownIsCurrent -update (-committed +generated):\n%s", diff)
	}
}
