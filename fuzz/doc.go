// Package fuzz holds the fuzz targets that cross packages and the tests that
// keep the import rules of the design and the README's fuzz commands:
//
//   - FuzzDifferential: whatever httpparse accepts, net/http.ReadRequest
//     accepts too, with the same method, target, header values and body
//     (rawmcp may be stricter, never laxer);
//   - FuzzServer: the whole server fed raw bytes through a socket pair,
//     on the socket code TCP runs: no panic, no hang, every response
//     well-formed, nothing answered after a close;
//   - FuzzLastEventID: Last-Event-ID values through the whole server never
//     replay another session's events and are answered 200 or 400 only;
//   - TestImportRules: leaves import only the standard library, only wire
//     imports net, nothing but tests imports net/http;
//   - TestReadmeFuzzCommands: every "go test -fuzz=PATTERN ./pkg" in
//     fuzz/README.md selects exactly one fuzz target, as go test requires.
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
