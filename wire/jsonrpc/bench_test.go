package jsonrpc

import (
	"encoding/json"
	"testing"
)

// Bodies as a client sends them (MCP 2025-11-25 Ping page; Lifecycle §1.1).
const (
	pingBody       = `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
		`"capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},` +
		`"clientInfo":{"name":"rawmcp-client","title":"rawmcp raw client","version":"0.1.0"}}}`
)

// stdlibEnvelope is what a net/http + encoding/json server would decode into.
type stdlibEnvelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// BenchmarkDecode compares Decode with encoding/json.Unmarshal on the same bodies; run with
// -benchmem to see allocations.
func BenchmarkDecode(b *testing.B) {
	for _, body := range []struct{ name, data string }{
		{"ping", pingBody},
		{"initialize", initializeBody},
	} {
		data := []byte(body.data)
		b.Run(body.name+"/jsonrpc.Decode", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(body.name+"/encoding_json.Unmarshal", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var envelope stdlibEnvelope
				if err := json.Unmarshal(data, &envelope); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckStrict measures the byte check alone against encoding/json.Valid.
func BenchmarkCheckStrict(b *testing.B) {
	data := []byte(initializeBody)
	b.Run("jsonrpc strict check", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if err := checkStrict(data, MaxDepth); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if !json.Valid(data) {
				b.Fatal("invalid")
			}
		}
	})
}
