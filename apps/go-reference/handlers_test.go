package main

import (
	"encoding/json"
	"math/big"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
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
		{"POST", "/fruit-prices", "application/json", `{"name":"Kiwi"}`, 405, "GET, HEAD"},
		{"DELETE", "/fruit-prices/Apple", "", "", 405, "GET, HEAD"},
		{"POST", "/fruit-prices-joined", "", "", 405, "GET, HEAD"},
		{"GET", "/fruit-prices/", "", "", 404, ""},
		{"GET", "/fruit-prices/" + strings.Repeat("x", 41), "", "", 404, ""},
		{"GET", "/fruit-prices/a%00b", "", "", 404, ""},
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

func price(cents int64, storeID int64) StorePrice {
	return StorePrice{
		Price: pgtype.Numeric{Int: big.NewInt(cents), Exp: -2, Valid: true},
		Store: Store{ID: storeID, Name: "Corner Grocer", Currency: "USD",
			Address: Address{Address: "12 Elm Street", City: "Springfield", Country: "USA"}},
	}
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Both ways of loading the prices give the same fruits: the second query's rows attached to the
// first query's fruits, and the joined query's flat rows folded.
func TestPricedFruits(t *testing.T) {
	apple, banana, cherry := Fruit{ID: 2, Name: "Apple"}, Fruit{ID: 3, Name: "Banana"}, Fruit{ID: 1, Name: "Cherry"}
	want := `[{"id":2,"name":"Apple","storePrices":[` +
		`{"price":1.29,"store":{"id":1,"name":"Corner Grocer","currency":"USD",` +
		`"address":{"address":"12 Elm Street","city":"Springfield","country":"USA"}}},` +
		`{"price":2.00,"store":{"id":4,"name":"Corner Grocer","currency":"USD",` +
		`"address":{"address":"12 Elm Street","city":"Springfield","country":"USA"}}}]},` +
		`{"id":3,"name":"Banana","storePrices":[{"price":0.59,"store":{"id":1,"name":"Corner Grocer","currency":"USD",` +
		`"address":{"address":"12 Elm Street","city":"Springfield","country":"USA"}}}]},` +
		`{"id":1,"name":"Cherry","storePrices":[]}]`

	attached := attachPrices([]Fruit{apple, banana, cherry}, []fruitPrice{
		{3, price(59, 1)}, {2, price(129, 1)}, {2, price(200, 4)},
		{9, price(100, 1)}, // a fruit that is not in the list (added between the two queries)
	})
	if got := marshal(t, attached); got != want {
		t.Errorf("attachPrices:\n got %s\nwant %s", got, want)
	}

	p1, p2, p3 := price(129, 1), price(200, 4), price(59, 1)
	folded := foldJoined([]joinedRow{{apple, &p1}, {apple, &p2}, {banana, &p3}, {cherry, nil}})
	if got := marshal(t, folded); got != want {
		t.Errorf("foldJoined:\n got %s\nwant %s", got, want)
	}

	if got := marshal(t, foldJoined(nil)); got != "[]" {
		t.Errorf("foldJoined(nil) = %s, want []", got)
	}
}
