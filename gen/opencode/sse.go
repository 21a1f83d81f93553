package opencode

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// errEventTooLarge reports an event whose data exceeds the reader's limit.
var errEventTooLarge = errors.New("server-sent event larger than the limit")

// sseReader parses the text/event-stream format of the HTML standard for
// the data of its events: "data" fields (the other fields, event, id and
// retry, which OpenCode does not send, are ignored like unknown ones);
// comment lines starting with ':'; a field name without a colon; one
// optional space after the colon; lines ending in "\n", "\r\n" or "\r";
// an event dispatched on an empty line and only when it has data; an
// unfinished event at the end of the stream discarded. Reconnection is not
// its business.
type sseReader struct {
	r   *bufio.Reader
	max int
	// pendingCR is set when the previous line ended in a lone '\r', so a
	// '\n' that follows belongs to that line ending.
	pendingCR bool
}

// newSSEReader reads events from r, each at most max bytes of data.
func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next event's data: its data lines joined with "\n". At
// the end of the stream it returns io.EOF (also when an unfinished event is
// discarded); a broken stream returns the read error.
func (s *sseReader) Next() ([]byte, error) {
	var data bytes.Buffer
	hasData := false
	for {
		line, err := s.line()
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			if !hasData {
				continue // an event without data is not dispatched
			}
			return data.Bytes(), nil
		}
		if line[0] == ':' {
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		if string(name) != "data" {
			continue
		}
		if data.Len()+len(value)+1 > s.max {
			return nil, fmt.Errorf("%w (%d bytes)", errEventTooLarge, s.max)
		}
		if hasData {
			data.WriteByte('\n')
		}
		data.Write(value)
		hasData = true
	}
}

// line returns the next line without its terminator. The returned slice is
// valid until the next call.
func (s *sseReader) line() ([]byte, error) {
	var buf []byte
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			// A last line without a terminator ends the stream before
			// its event is complete: it is discarded with the event.
			return nil, err
		}
		if s.pendingCR {
			s.pendingCR = false
			if b == '\n' {
				continue
			}
		}
		switch b {
		case '\n':
			return buf, nil
		case '\r':
			s.pendingCR = true
			return buf, nil
		}
		if len(buf) >= s.max+64 {
			return nil, fmt.Errorf("%w (a line of more than %d bytes)", errEventTooLarge, s.max)
		}
		buf = append(buf, b)
	}
}
