// Package fuzz holds the fuzz targets that cross packages and the tests
// that hold the design's rules and the documents' claims to the code:
//
//   - FuzzDifferential: whatever httpparse accepts, net/http.ReadRequest
//     accepts too, with the same method, target, header values and body
//     (rawmcp may be stricter, never laxer);
//   - FuzzServer: the whole server fed raw bytes through a socket pair,
//     on the socket code TCP runs: no panic, no hang, every response
//     well-formed, nothing answered after a close;
//   - FuzzLastEventID: Last-Event-ID values through the whole server never
//     replay another session's events and are answered 200 or 400 (431
//     for a value past the field limit), never 404 or 5xx;
//   - TestServerOutputFaults, TestResumeFaults: each clause of those two
//     invariants fails on an output made to break it;
//   - TestImportRules: leaves import only the standard library; only wire,
//     wire/client and wire/client/clienttest import net; nothing but tests
//     imports net/http or a third-party module; nothing under wire/client
//     imports the server's packages; only tests import clienttest; the
//     lifecycle model, wire/h1 and wire/mcp import only what they may;
//   - TestLeavesHoldNoFunctionFields: no struct of a package that is only
//     called holds a callback;
//   - TestRuleIDsSpelledOnlyInWireRule, TestCitedRuleIDsExist: a rule id
//     is spelled only in wire/rule, and every id a comment, test name or
//     document cites is in its tables;
//   - TestREADMENamesCode, TestREADMEMapListsEveryPackage,
//     TestREADMEWalkIsOnThePath: the top README's walk and map name code
//     that exists, every package, and functions in the order a request
//     runs them;
//   - TestReadmeFuzzCommands, TestReadmeListsEveryFuzzTarget: every fuzz
//     target has its command in fuzz/README.md, and each command selects
//     exactly one target, as go test requires;
//   - TestDocNamesEveryTest, TestClientDocNamesItsImporters,
//     TestRuleTextsQuoteTheDefaults, TestReadmeCountsTheLifecycleEvents:
//     the lists and figures of this comment, of wire/client's, of the
//     rule sentences and of fuzz/README.md are the code's;
//   - TestEveryPackageHasAComment: every package of the module has a
//     package comment, so go doc says what each one is.
//
// The package has no non-test code besides this comment.
//
// Not supported:
//   - timeouts: the server's clock stands in the future, so its socket
//     deadlines never fire (the wire tests cover slowloris and read
//     deadlines); resets and timing are the kernel's, not the fuzzer's;
//   - a differential check of the response parser: only requests are
//     compared with net/http.
package fuzz
