package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzStrictJSON states the package's invariants on arbitrary bytes:
//
//   - CheckStrict, Decode, Member and StringValue never panic, and every error is an *Error
//     whose offset lies within the input;
//   - whatever CheckStrict accepts, encoding/json.Valid accepts and encoding/json.Unmarshal
//     decodes into an any (the profile only ever narrows RFC 8259);
//   - Decode fails with CheckStrict's error when CheckStrict fails, and otherwise with an
//     Invalid Request reason or not at all;
//   - Decode, which reads the members the strict check recorded, answers exactly as
//     walking the object a second time does (decodeByWalking);
//   - a decoded request, notification or result written back with the writers is one
//     compact line that decodes to the same message (raw JSON compared compacted).
//
// Seeds: the unit-test tables, plus testdata/fuzz/FuzzStrictJSON.
func FuzzStrictJSON(f *testing.F) {
	for _, tc := range strictCases {
		f.Add([]byte(tc.input))
	}
	for _, tc := range decodeCases {
		f.Add([]byte(tc.input))
	}
	for _, tc := range wireCases {
		f.Add([]byte(tc.wire))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkErr := checkStrict(data, MaxDepth)
		assertLocatedError(t, data, checkErr, CodeParseError)
		if checkErr == nil {
			if !json.Valid(data) {
				t.Fatal("CheckStrict accepts what json.Valid refuses")
			}
			var value any
			if err := json.Unmarshal(data, &value); err != nil {
				t.Fatalf("CheckStrict accepts what json.Unmarshal refuses: %v", err)
			}
		}

		msg, err := Decode(data)
		if ref, refErr := decodeByWalking(data); !reflect.DeepEqual(msg, ref) || fmt.Sprint(err) != fmt.Sprint(refErr) {
			t.Fatalf("Decode = %+v, %v; walking the object again gives %+v, %v", msg, err, ref, refErr)
		}
		if checkErr != nil {
			if !errors.Is(err, checkErr) {
				t.Fatalf("Decode error %v, CheckStrict error %v", err, checkErr)
			}
		} else {
			assertLocatedError(t, data, err, CodeInvalidRequest)
		}
		if err == nil {
			assertRoundTrip(t, msg)
		}

		if raw, ok := Member(data, "id"); ok && checkErr == nil && !json.Valid(raw) {
			t.Fatalf("Member returned %q, which is no JSON value", raw)
		}
		if s, ok := StringValue(data); ok {
			var want string
			if err := json.Unmarshal(data, &want); err != nil || s != want {
				t.Fatalf("StringValue = %q, encoding/json reads %q (%v)", s, want, err)
			}
		}
	})
}

// assertLocatedError checks that err is nil or an *Error with the given code whose offset
// lies within data.
func assertLocatedError(t *testing.T, data []byte, err error, code int) {
	t.Helper()
	if err == nil {
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is no *Error", err)
	}
	if e.Code != code || e.Offset < 0 || e.Offset > len(data) {
		t.Fatalf("error %v: want code %d and an offset within %d bytes", e, code, len(data))
	}
}

// assertRoundTrip writes msg back and decodes it again.
func assertRoundTrip(t *testing.T, msg Message) {
	t.Helper()
	var written []byte
	switch msg.Kind {
	case KindRequest:
		written = AppendRequest(nil, msg.ID, msg.Method, msg.Params)
	case KindNotification:
		written = AppendNotification(nil, msg.Method, msg.Params)
	case KindResult:
		written = AppendResult(nil, msg.ID, msg.Result)
	default:
		return // AppendError writes a code and message, not a raw error object
	}
	if bytes.ContainsAny(written, "\r\n") {
		t.Fatalf("written message %q is not one line", written)
	}
	again, err := Decode(written)
	if err != nil {
		t.Fatalf("Decode(%q) of the written message: %v", written, err)
	}
	want := msg
	want.Params = compactOrNil(msg.Params)
	want.Result = compactOrNil(msg.Result)
	if diff := cmp.Diff(want, again, allowID); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
}

func compactOrNil(raw []byte) []byte {
	if raw == nil {
		return nil
	}
	return appendCompact(nil, raw)
}

// decodeByWalking is Decode as it was before the strict check recorded the top-level
// members: the object walked a second time with memberIterator. FuzzStrictJSON holds
// Decode to it, so the recording loses, moves or misplaces no member.
func decodeByWalking(data []byte) (Message, error) {
	if err := checkStrict(data, MaxDepth); err != nil {
		return Message{}, err
	}
	start, err := objectStart(data)
	if err != nil {
		return Message{}, err
	}
	var env envelope
	members := memberIterator{data: data, i: start + 1}
	for {
		member, ok := members.next()
		if !ok {
			break
		}
		slot := env.slot(data, member.name)
		if slot == nil {
			return Message{}, ErrUnknownMember.at(member.name.start - 1)
		}
		*slot = member.value
	}
	return env.message(data, start)
}
