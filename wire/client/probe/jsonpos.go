package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// syntaxError says where a JSON syntax error in data is, as an editor
// counts it ("invalid character '}' ... at line 3, column 1"); ok is
// false when err is no syntax error.
func syntaxError(data []byte, err error) (msg string, ok bool) {
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		return "", false
	}
	// Offset counts the bytes read, the offending one included.
	before := data[:max(0, min(int(syntax.Offset)-1, len(data)))]
	line := bytes.Count(before, []byte{'\n'}) + 1
	column := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("%v at line %d, column %d", syntax, line, column), true
}

// JSONSyntax is nil for well-formed JSON, else an error saying where
// the first syntax error is: "not JSON: invalid character '}' looking
// for beginning of object key string at line 3, column 1".
func JSONSyntax(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	if msg, ok := syntaxError(data, err); ok {
		return errors.New("not JSON: " + msg)
	}
	if err != nil {
		return errors.New("not JSON: " + err.Error())
	}
	return nil
}
