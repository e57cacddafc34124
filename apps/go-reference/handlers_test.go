package main

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestParseField(t *testing.T) {
	ok := []struct{ body, want string }{
		{`{"name":"Kiwi"}`, "Kiwi"},
		{`{"name":"` + strings.Repeat("é", 40) + `","extra":1}`, strings.Repeat("é", 40)},
	}
	for _, tt := range ok {
		got, err := parseField([]byte(tt.body), "name", 40)
		if err != nil || got != tt.want {
			t.Errorf("parseField(%s) = %q, %v; want %q", tt.body, got, err, tt.want)
		}
	}

	bad := []string{
		`{"name":`, `{"name":"a"} x`, `[]`, `"Kiwi"`, `null`, `{}`, `{"NAME":"Kiwi"}`,
		`{"name":null}`, `{"name":42}`, `{"name":""}`, `{"name":" \t"}`,
		`{"name":"` + strings.Repeat("é", 41) + `"}`, `{"name":"a\u0000b"}`,
	}
	for _, body := range bad {
		if got, err := parseField([]byte(body), "name", 40); err == nil {
			t.Errorf("parseField(%s) = %q, want an error", body, got)
		}
	}
}

// The routes below answer without touching the database, so a server without a pool serves them.
func TestRoutesWithoutDatabase(t *testing.T) {
	h := newServer(&store{}, "native").routes()
	tests := []struct {
		method, path, contentType, body string
		status                          int
		allow                           string
	}{
		{"GET", "/hello", "", "", 200, ""},
		{"GET", "/health/live", "", "", 200, ""},
		{"GET", "/nope", "", "", 404, ""},
		{"GET", "/fruits/", "", "", 404, ""},
		{"GET", "/fruits/abc", "", "", 404, ""},
		{"GET", "/fruits/99999999999999999999", "", "", 404, ""},
		{"DELETE", "/fruits", "", "", 405, "GET, HEAD, POST"},
		{"POST", "/fruits/1", "", "", 405, "DELETE, GET, HEAD, PUT"},
		{"GET", "/data", "", "", 405, "POST"},
		{"GET", "/data/%FF", "", "", 404, ""},
		{"GET", "/data/a%00b", "", "", 404, ""},
		{"GET", "/data/" + strings.Repeat("x", 101), "", "", 404, ""},
		{"POST", "/fruits", "text/plain", `{"name":"Kiwi"}`, 415, ""},
		{"POST", "/fruits", "", `{"name":"Kiwi"}`, 415, ""},
		{"POST", "/fruits", "application/json", `{"name":`, 400, ""},
		{"POST", "/fruits", "application/json; charset=utf-8", `{"name":"  "}`, 400, ""},
		{"PUT", "/fruits/1", "application/json", `{"name":"` + strings.Repeat("x", 41) + `"}`, 400, ""},
		{"POST", "/data", "application/json", `{"data":"` + strings.Repeat("x", 101) + `"}`, 400, ""},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
		if tt.contentType != "" {
			req.Header.Set("Content-Type", tt.contentType)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		name := tt.method + " " + tt.path
		if rec.Code != tt.status {
			t.Errorf("%s: status %d, want %d (%s)", name, rec.Code, tt.status, rec.Body)
		}
		if got := rec.Header().Get("Allow"); got != tt.allow {
			t.Errorf("%s: Allow %q, want %q", name, got, tt.allow)
		}
		if tt.status >= 400 {
			var e errorBody
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s: Content-Type %q", name, ct)
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Status != tt.status || e.Error == "" {
				t.Errorf("%s: error body %s", name, rec.Body)
			}
		}
	}
}

func TestHello(t *testing.T) {
	rec := httptest.NewRecorder()
	newServer(&store{}, "native").routes().ServeHTTP(rec, httptest.NewRequest("GET", "/hello", nil))
	if got := rec.Body.String(); got != "Hello from Go (native)" {
		t.Errorf("body %q", got)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q", ct)
	}
}
