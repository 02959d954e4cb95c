package api

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/tracecraft/tracecraft/host/internal/fault"
)

// failed writes err with fail into a recorder and returns it with the context's log
// facts.
func failed(t *testing.T, err error) (*httptest.ResponseRecorder, *gin.Context, errorBody) {
	t.Helper()
	rec := httptest.NewRecorder()
	c, _ := gin.CreateTestContext(rec)
	(&Server{}).fail(c, err)
	var body errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("the error body is not JSON: %v: %s", err, rec.Body)
	}
	return rec, c, body
}

// TestFailAnswersEachCodeWithItsTableStatus checks that every code of the table is
// answered with the table's status, its code and its message.
func TestFailAnswersEachCodeWithItsTableStatus(t *testing.T) {
	for _, k := range fault.Kinds {
		t.Run(k.Code, func(t *testing.T) {
			rec, c, body := failed(t, fault.New(k.Code, "what went wrong with %s", k.Code))
			if rec.Code != k.Status || body.Error.Code != k.Code || body.Error.Message != "what went wrong with "+k.Code {
				t.Errorf("got %d %+v, want %d with the code and message", rec.Code, body.Error, k.Status)
			}
			if got, _ := c.Get(logError); got != k.Code {
				t.Errorf("the log's error is %v, want %s", got, k.Code)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

// TestFailHidesCausesAndPassesOnWhatClientsUse checks the details, Retry-After, and
// that a cause is logged for a server error but never shown.
func TestFailHidesCausesAndPassesOnWhatClientsUse(t *testing.T) {
	cause := errors.New("open /var/lib/secret.db: permission denied")
	tests := []struct {
		name        string
		err         error
		status      int
		code        string
		retryAfter  string
		details     int
		loggedCause bool
	}{
		{"an error without a code", cause, 500, fault.Internal, "", 0, true},
		{"a wrapped coded error", errors.Join(errors.New("context"), fault.New(fault.TooManyPixels, "too many")), 400, fault.TooManyPixels, "", 0, false},
		{"a server error with a cause", fault.Wrap(cause, fault.StoreUnavailable, "the usage database cannot be reached"), 503, fault.StoreUnavailable, "", 0, true},
		{"a client error with a cause", fault.Wrap(cause, fault.InvalidRequest, "the body is malformed"), 400, fault.InvalidRequest, "", 0, false},
		{"a full queue", &fault.Error{Code: fault.QueueFull, Message: "full", RetryAfter: 7}, 429, fault.QueueFull, "7", 0, false},
		{"every problem", &fault.Error{Code: fault.InvalidSettings, Message: "bad", Details: []fault.Detail{{Field: "a", Message: "x"}, {Field: "b", Message: "y"}}}, 400, fault.InvalidSettings, "", 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, c, body := failed(t, tt.err)
			if rec.Code != tt.status || body.Error.Code != tt.code || len(body.Error.Details) != tt.details {
				t.Errorf("got %d %+v, want %d %s with %d details", rec.Code, body.Error, tt.status, tt.code, tt.details)
			}
			if got := rec.Header().Get("Retry-After"); got != tt.retryAfter {
				t.Errorf("Retry-After %q, want %q", got, tt.retryAfter)
			}
			if strings.Contains(rec.Body.String(), "secret") {
				t.Errorf("the answer shows the cause: %s", rec.Body)
			}
			if _, logged := c.Get(logCause); logged != tt.loggedCause {
				t.Errorf("cause logged %v, want %v", logged, tt.loggedCause)
			}
		})
	}
}
