package wire

import (
	"errors"

	"rawmcp/httpparse"
	"rawmcp/policy"
	"rawmcp/wire/jsonrpc"
	"rawmcp/wire/mcp"
	"rawmcp/wire/rule"
)

// This file is where a decision of another package becomes an HTTP answer
// and the rule that names it: a parser refusal, a JSON-RPC decode error, a
// policy denial, an MCP outcome. Two of them come with their status,
// chosen where the knowledge is: httpparse.Error (400, 413, 414, 417, 431,
// 501, 505: only the parser knows which limit or grammar failed) and
// policy.Denial (401, 400 or 403: only the policy knows why a token was
// refused). Every other status is chosen here or in the route.

// refuse builds an error answer; seal fills in its constant body from the
// status and code alone.
func refuse(status int, id rule.ID, headers ...header) response {
	return response{status: status, rule: id, headers: headers}
}

// sessionNotFound is the one 404 for a session that is unknown, expired,
// ended or another principal's (T-43, T-P10).
var sessionNotFound = response{status: 404, rule: rule.SessionNotFound, rpcCode: codeSessionNotFound}

// lifecycleRefusal is initialize on a session or a step out of order.
var lifecycleRefusal = response{status: 400, rule: rule.LifecycleOrder, rpcCode: jsonrpc.CodeInvalidRequest}

// unavailable is the 503 of a full budget (requests in processing, open
// connections, sessions): refused at once, with Retry-After so the client
// tries again soon rather than waiting (RFC 9110 §10.2.3).
func unavailable(id rule.ID) response {
	return refuse(503, id, header{"Retry-After", "1"})
}

// methodRefusal is 405 with Allow for a method the standard defines, 501
// for one this server does not recognise (H-P12).
func methodRefusal(m httpparse.Method, allow string) response {
	if m == httpparse.MethodUnknown {
		return refuse(501, rule.MethodNotServed)
	}
	return refuse(405, rule.MethodNotServed, header{"Allow", allow})
}

// decodeRefused answers a body that is not one JSON-RPC message: -32600
// for valid JSON of the wrong shape (T-P03), -32700 for anything that is
// not strict JSON (T-P13). Not inlined, like decision.refuse.
//
//go:noinline
func (d *decision) decodeRefused(err error) {
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code == jsonrpc.CodeInvalidRequest {
		d.answer = response{status: 400, rule: rule.OneJSONRPCMessage, rpcCode: jsonrpc.CodeInvalidRequest}
		return
	}
	d.answer = response{status: 400, rule: rule.StrictJSON, rpcCode: jsonrpc.CodeParseError}
}

// denialResponse answers a policy denial with its status and challenge;
// its Detail (which check failed) goes to the log only.
func denialResponse(d *policy.Denial) response {
	r := response{status: d.Status, rule: denialRules[d.Reason], detail: d.Detail}
	if d.Challenge != "" {
		r.headers = []header{{"WWW-Authenticate", d.Challenge}}
	}
	return r
}

// denialRules names the rule of each policy.Reason (a test walks them all).
var denialRules = map[policy.Reason]rule.ID{
	policy.ReasonMissingToken:           rule.NoCredentials,
	policy.ReasonMalformedAuthorization: rule.MalformedAuthz,
	policy.ReasonInvalidToken:           rule.InvalidToken,
	policy.ReasonInsufficientScope:      rule.InsufficientScope,
	policy.ReasonTenantForbidden:        rule.TenantNotServed,
}

// outcomeAnswers is how each MCP outcome other than Answered goes out:
// status, rule and the JSON-RPC code of the constant error body.
var outcomeAnswers = [...]response{
	mcp.Accepted:            {status: 202, rule: rule.NotificationAccepted},
	mcp.Unsolicited:         {status: 400, rule: rule.UnsolicitedResponse, rpcCode: jsonrpc.CodeInvalidRequest},
	mcp.NotificationRefused: {status: 400, rule: rule.NotificationRefused, rpcCode: jsonrpc.CodeInvalidRequest},
	mcp.SessionGone:         sessionNotFound,
	mcp.LifecycleRefused:    lifecycleRefusal,
	mcp.TableFull:           {status: 503, rule: rule.SessionCapacity, headers: []header{{"Retry-After", "1"}}},
	mcp.Failed:              {status: 500, rule: rule.InternalError},
}

// replyResponse writes what wire/mcp decided (d.reply) as HTTP: d's
// answer, and for an SSE answer the event conn frames into its body.
func replyResponse(d *decision) {
	r := &d.reply
	if r.Outcome != mcp.Answered {
		d.answer = outcomeAnswers[r.Outcome]
		return
	}
	d.answer = response{status: 200, rule: r.Rule}
	switch r.Body {
	case mcp.BodyJSON:
		d.answer.contentType = contentTypeJSON
		d.answer.body = r.Message
	case mcp.BodyEvent:
		d.answer.contentType = contentTypeSSE
		d.stream = stream{kind: streamEvent, eventID: r.EventID, message: r.Message}
	}
	if r.SessionID != "" {
		d.answer.headers = append(d.answer.headers, header{sessionIDHeader, r.SessionID})
		d.opened.id = r.SessionID
	}
}

// parseRules names the rule behind each refusal of the request parser;
// TestParseRulesCoverEveryReason walks the package's Reason constants, so a
// new reason cannot fall through to a neighbouring rule.
var parseRules = map[httpparse.Reason]rule.ID{
	httpparse.ReasonBareLF:                            rule.BareLF,
	httpparse.ReasonBareCR:                            rule.NeverRepaired,
	httpparse.ReasonObsFold:                           rule.NeverRepaired,
	httpparse.ReasonWhitespaceAfterRequestLine:        rule.NeverRepaired,
	httpparse.ReasonEmptyFieldName:                    rule.FieldNameNotToken,
	httpparse.ReasonInvalidFieldName:                  rule.FieldNameNotToken,
	httpparse.ReasonSpaceBeforeColon:                  rule.SpaceBeforeColon,
	httpparse.ReasonMissingColon:                      rule.GrammarViolation,
	httpparse.ReasonInvalidConnection:                 rule.GrammarViolation,
	httpparse.ReasonInvalidFieldValue:                 rule.ControlByteInValue,
	httpparse.ReasonTooManyFields:                     rule.FixedLimit,
	httpparse.ReasonHeaderSectionTooLarge:             rule.FixedLimit,
	httpparse.ReasonFieldValueTooLong:                 rule.FixedLimit,
	httpparse.ReasonTargetTooLong:                     rule.FixedLimit,
	httpparse.ReasonBodyTooLarge:                      rule.FixedLimit,
	httpparse.ReasonBufferFull:                        rule.FixedLimit,
	httpparse.ReasonDuplicateField:                    rule.DuplicateSingleton,
	httpparse.ReasonInvalidContentLength:              rule.ContentLengthSyntax,
	httpparse.ReasonLeadingEmptyLines:                 rule.RequestLineSyntax,
	httpparse.ReasonInvalidRequestLine:                rule.RequestLineSyntax,
	httpparse.ReasonTargetNotOriginForm:               rule.RequestLineSyntax,
	httpparse.ReasonInvalidTarget:                     rule.RequestLineSyntax,
	httpparse.ReasonInvalidPercentEscape:              rule.RequestLineSyntax,
	httpparse.ReasonInvalidVersion:                    rule.RequestLineSyntax,
	httpparse.ReasonTargetQuery:                       rule.QueryRefused,
	httpparse.ReasonTargetFragment:                    rule.QueryRefused,
	httpparse.ReasonInvalidMethod:                     rule.MethodNotToken,
	httpparse.ReasonMethodTooLong:                     rule.MethodTooLong,
	httpparse.ReasonVersionNotSupported:               rule.VersionNotSupported,
	httpparse.ReasonMissingHost:                       rule.HostRequired,
	httpparse.ReasonInvalidHost:                       rule.HostRequired,
	httpparse.ReasonTransferEncodingWithContentLength: rule.TransferEncoding,
	httpparse.ReasonInvalidTransferEncoding:           rule.TransferEncoding,
	httpparse.ReasonChunkedNotFinal:                   rule.TransferEncoding,
	httpparse.ReasonTransferEncodingNotImplemented:    rule.TransferEncoding,
	httpparse.ReasonUnsupportedExpectation:            rule.ExpectationFailed,
}

// parseRefusal answers a parser refusal with its status and rule.
func parseRefusal(e *httpparse.Error) response {
	return response{status: e.Status, rule: parseRules[e.Reason]}
}
