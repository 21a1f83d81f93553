package opencode_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/agentc-dev/agentc/gen/opencode"
)

// ev builds an event of session ses_x; props is the JSON inside
// "properties" after the session id.
func ev(typ, props string) string {
	return fmt.Sprintf(`{"type":%q,"properties":{"sessionID":"ses_x"%s}}`, typ, props)
}

const (
	userMsg = `,"info":{"id":"msg_1","role":"user"}`
	busy    = `,"status":{"type":"busy"}`
)

// assistantMsg is message.updated's info of the answer msg_2, completed
// or not.
func assistantMsg(completed bool) string {
	done := ""
	if completed {
		done = `,"completed":2`
	}
	return `,"info":{"id":"msg_2","role":"assistant","parentID":"msg_1","time":{"created":1` + done + `}}`
}

// textPart is message.part.updated's part: a text part of message msg with
// the given extra fields.
func textPart(id, msg, text, extra string) string {
	return fmt.Sprintf(`,"part":{"id":%q,"messageID":%q,"type":"text","text":%q%s}`, id, msg, text, extra)
}

// TestNormalize feeds hand-written event streams, and the message lists
// read at idle, through an executor and compares the normalised events.
func TestNormalize(t *testing.T) {
	const ended = `,"time":{"start":1,"end":2}`
	for _, tc := range []struct {
		name     string
		events   []string
		messages string // the message list at idle
		want     []string
	}{{
		// Only the user's and the model's own finished text shows:
		// reasoning pieces, synthetic, ignored and empty parts, and
		// pieces or updates after a part ended do not; nor does a
		// session.status without a status or of another kind.
		name: "text parts",
		events: []string{
			ev("message.updated", userMsg),
			ev("message.part.updated", textPart("prt_u", "msg_1", "go", "")),
			ev("message.part.updated", textPart("prt_s", "msg_1", "added by OpenCode", `,"synthetic":true`)),
			ev("session.status", ""),
			ev("session.status", `,"status":{"type":"compacting"}`),
			ev("session.status", busy),
			ev("message.updated", assistantMsg(false)),
			ev("message.part.updated", `,"part":{"id":"prt_r","messageID":"msg_2","type":"reasoning","text":""}`),
			ev("message.part.delta", `,"messageID":"msg_2","partID":"prt_r","field":"text","delta":"thinking"`),
			ev("message.part.updated", textPart("prt_t", "msg_2", "", `,"time":{"start":1}`)),
			ev("message.part.delta", `,"messageID":"msg_2","partID":"prt_t","field":"text","delta":"Hel"`),
			ev("message.part.delta", `,"messageID":"msg_2","partID":"prt_t","field":"text","delta":""`),
			ev("message.part.updated", textPart("prt_i", "msg_2", "ignored", `,"ignored":true`+ended)),
			ev("message.part.updated", textPart("prt_e", "msg_2", "", ended)),
			ev("message.part.updated", textPart("prt_t", "msg_2", "Hello", ended)),
			ev("message.part.delta", `,"messageID":"msg_2","partID":"prt_t","field":"text","delta":"late"`),
			ev("message.part.updated", textPart("prt_t", "msg_2", "Hello", ended)),
			ev("message.updated", assistantMsg(true)),
			ev("session.idle", ""),
		},
		want: []string{
			"message/user/go",
			"message/assistant/Hel (partial)",
			"message/assistant/Hello",
			"completion/assistant/Hello",
		},
	}, {
		// The list can lag the stream: an answer it shows unfinished
		// does not end the turn, the event that finishes it does.
		name: "list shows the answer unfinished",
		events: []string{
			ev("message.updated", userMsg),
			ev("session.status", busy),
			ev("message.updated", assistantMsg(false)),
			ev("message.part.updated", textPart("prt_t", "msg_2", "from events", ended)),
			ev("session.idle", ""),
			ev("message.updated", assistantMsg(true)),
		},
		messages: `[{"info":{"id":"msg_1","role":"user"},"parts":[]},
			{"info":{"id":"msg_2","role":"assistant","parentID":"msg_1","time":{"created":1}},
			 "parts":[{"id":"prt_t","messageID":"msg_2","type":"text","text":"from the list"}]}]`,
		want: []string{
			"message/assistant/from events",
			"completion/assistant/from events",
		},
	}, {
		// Neither the events nor the list show an answer yet, and no
		// error was reported: the turn goes on.
		name: "list shows no answer yet",
		events: []string{
			ev("message.updated", userMsg),
			ev("session.status", busy),
			ev("session.idle", ""),
			ev("message.updated", assistantMsg(false)),
			ev("message.part.updated", textPart("prt_t", "msg_2", "late", ended)),
			ev("message.updated", assistantMsg(true)),
		},
		messages: `[{"info":{"id":"msg_1","role":"user"},"parts":[]}]`,
		want: []string{
			"message/assistant/late",
			"completion/assistant/late",
		},
	}, {
		name: "list without the prompt",
		events: []string{
			ev("message.updated", userMsg),
			ev("session.status", busy),
			ev("session.idle", ""),
			ev("message.updated", assistantMsg(true)),
		},
		messages: `[]`,
		want:     []string{"completion/assistant/"},
	}, {
		// An error reported before the prompt is in the list does not
		// end the turn at idle: the prompt, when it shows, does.
		name: "error before the prompt is listed",
		events: []string{
			ev("session.status", busy),
			ev("session.error", `,"error":{"name":"APIError","data":{"message":"down"}}`),
			ev("session.idle", ""),
			ev("message.part.updated", textPart("prt_t", "msg_2", "late", ended)),
			ev("message.updated", userMsg),
		},
		messages: `[]`,
		want: []string{
			"error//APIError: down",
			"message/assistant/late",
			"completion/assistant/APIError: down (error)",
		},
	}, {
		// A message list that cannot be read is reported on Errors and
		// the turn goes on.
		name: "list unreadable",
		events: []string{
			ev("message.updated", userMsg),
			ev("session.status", busy),
			ev("message.updated", assistantMsg(false)),
			ev("session.idle", ""),
			ev("message.part.updated", textPart("prt_t", "msg_2", "answer", ended)),
			ev("message.updated", assistantMsg(true)),
		},
		messages: `not json`,
		want: []string{
			"message/assistant/answer",
			"completion/assistant/answer",
		},
	}, {
		// An error with a name only is that name.
		name: "error without a message",
		events: []string{
			ev("message.updated", userMsg),
			ev("session.status", busy),
			ev("session.error", `,"error":{"name":"ContextOverflowError"}`),
			ev("session.idle", ""),
		},
		want: []string{
			"error//ContextOverflowError",
			"completion/assistant/ContextOverflowError (error)",
		},
	}, {
		// A session.error without details still fails the turn.
		name: "error without details",
		events: []string{
			ev("message.updated", userMsg),
			ev("session.status", busy),
			ev("session.error", ""),
			ev("session.idle", ""),
		},
		messages: `[{"info":{"id":"msg_1","role":"user"},"parts":[]}]`,
		want: []string{
			"error//UnknownError",
			"completion/assistant/UnknownError (error)",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeServer(t, "ses_x")
			if tc.messages != "" {
				f.messages = func() []byte { return []byte(tc.messages) }
			}
			f.stream = func(w io.Writer, flush func(), r *http.Request) {
				wait(t, r, f.prompted, "prompt")
				writeEvents(w, flush, tc.events)
			}
			c := newClient(t, f.URL, opencode.Config{})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			resp, err := c.Execute(ctx, &opencode.ExecuteRequest{Message: "go"})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range resp.Events[1:] { // after the system event
				s := fmt.Sprintf("%s/%s/%s", e.Type, e.Role, e.Text+e.FinalText+e.Error)
				if e.Partial {
					s += " (partial)"
				}
				if e.IsError {
					s += " (error)"
				}
				got = append(got, s)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("events:\n%q\nwant:\n%q", got, tc.want)
			}
		})
	}
}

// TestStreamEventString: the one-line form for logs names the kind and the
// fields that are set, quoted, and leaves out the rest.
func TestStreamEventString(t *testing.T) {
	e := &opencode.StreamEvent{Type: opencode.EventToolResult, Role: "assistant", ToolName: "echo", ToolID: "toolu_1",
		ToolInput: []byte(`{"text":"hi"}`), ToolStatus: "error", ToolOutput: "Tool execution aborted", IsError: true}
	want := `tool_result role="assistant" tool="echo" id="toolu_1" input="{\"text\":\"hi\"}" status="error" output="Tool execution aborted"`
	if got := e.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	p := &opencode.StreamEvent{Type: opencode.EventMessage, Text: "He", Partial: true}
	if got, want := p.String(), `message text="He" partial`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}
