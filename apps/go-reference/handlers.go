package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	maxFruitName = 40
	maxDataKey   = 100
	maxBodyBytes = 1 << 20
)

type server struct {
	store *store
	mode  string
}

func newServer(s *store, mode string) *server {
	return &server{store: s, mode: mode}
}

// routes wires the contract. Go's ServeMux answers unknown paths and wrong methods in plain
// text, so a catch-all and one method-less pattern per path give JSON errors instead.
func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	route(mux, "/hello", methods{"GET": s.hello})
	route(mux, "/fruits", methods{"GET": s.listFruits, "POST": s.createFruit})
	route(mux, "/fruits/{id}", methods{"GET": s.getFruit, "PUT": s.updateFruit, "DELETE": s.deleteFruit})
	route(mux, "/todos", methods{"GET": s.listTodos})
	route(mux, "/fruit-prices", methods{"GET": s.listFruitPrices})
	route(mux, "/fruit-prices/{name}", methods{"GET": s.getFruitPrices})
	route(mux, "/fruit-prices-joined", methods{"GET": s.listFruitPricesJoined})
	route(mux, "/data", methods{"POST": s.createData})
	route(mux, "/data/{key}", methods{"GET": s.getData})
	route(mux, "/health/live", methods{"GET": s.live})
	route(mux, "/health/ready", methods{"GET": s.ready})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no route for "+r.URL.Path)
	})
	return mux
}

type methods map[string]http.HandlerFunc

// route registers a handler per method for path, and a JSON 405 with an Allow header for the rest.
func route(mux *http.ServeMux, path string, byMethod methods) {
	allow := make([]string, 0, len(byMethod)+1)
	for method, h := range byMethod {
		mux.HandleFunc(method+" "+path, h)
		allow = append(allow, method)
		if method == http.MethodGet { // a GET pattern also serves HEAD
			allow = append(allow, http.MethodHead)
		}
	}
	slices.Sort(allow)
	allowed := strings.Join(allow, ", ")
	mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allowed)
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed, use %s", r.Method, allowed))
	})
}

func (s *server) hello(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "Hello from Go ("+s.mode+")")
}

func (s *server) listFruits(w http.ResponseWriter, r *http.Request) {
	fruits, err := s.store.fruits(r.Context())
	if err != nil {
		serverError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, fruits)
}

func (s *server) getFruit(w http.ResponseWriter, r *http.Request) {
	id, ok := fruitID(w, r)
	if !ok {
		return
	}
	fruit, err := s.store.fruit(r.Context(), id)
	if err != nil {
		fruitError(w, err, id, "")
		return
	}
	writeJSON(w, http.StatusOK, fruit)
}

func (s *server) createFruit(w http.ResponseWriter, r *http.Request) {
	name, ok := readField(w, r, "name", maxFruitName)
	if !ok {
		return
	}
	fruit, err := s.store.createFruit(r.Context(), name)
	if err != nil {
		fruitError(w, err, 0, name)
		return
	}
	w.Header().Set("Location", location(r, "/fruits/"+strconv.FormatInt(fruit.ID, 10)))
	writeJSON(w, http.StatusCreated, fruit)
}

func (s *server) updateFruit(w http.ResponseWriter, r *http.Request) {
	id, ok := fruitID(w, r)
	if !ok {
		return
	}
	name, ok := readField(w, r, "name", maxFruitName)
	if !ok {
		return
	}
	fruit, err := s.store.updateFruit(r.Context(), id, name)
	if err != nil {
		fruitError(w, err, id, name)
		return
	}
	writeJSON(w, http.StatusOK, fruit)
}

func (s *server) deleteFruit(w http.ResponseWriter, r *http.Request) {
	id, ok := fruitID(w, r)
	if !ok {
		return
	}
	if err := s.store.deleteFruit(r.Context(), id); err != nil {
		fruitError(w, err, id, "")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *server) listTodos(w http.ResponseWriter, r *http.Request) {
	todos, err := s.store.todos(r.Context())
	if err != nil {
		serverError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, todos)
}

func (s *server) listFruitPrices(w http.ResponseWriter, r *http.Request) {
	fruits, err := s.store.pricedFruits(r.Context())
	if err != nil {
		serverError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, fruits)
}

func (s *server) getFruitPrices(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	// A name POST /fruits would refuse cannot exist (see getData).
	if validate("name", name, maxFruitName) != nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf("fruit %q not found", name))
		return
	}
	fruit, err := s.store.pricedFruit(r.Context(), name)
	switch {
	case errors.Is(err, errNotFound):
		writeError(w, http.StatusNotFound, fmt.Sprintf("fruit %q not found", name))
	case err != nil:
		serverError(w, err)
	default:
		writeJSON(w, http.StatusOK, fruit)
	}
}

func (s *server) listFruitPricesJoined(w http.ResponseWriter, r *http.Request) {
	fruits, err := s.store.pricedFruitsJoined(r.Context())
	if err != nil {
		serverError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, fruits)
}

func (s *server) getData(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("key")
	// A key POST /data would refuse (too long, NUL, invalid UTF-8) cannot exist; PostgreSQL
	// would reject some of them with an error rather than answer "no row".
	if validate("data", key, maxDataKey) != nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf("data %q not found", key))
		return
	}
	data, err := s.store.data(r.Context(), key)
	switch {
	case errors.Is(err, errNotFound):
		writeError(w, http.StatusNotFound, fmt.Sprintf("data %q not found", key))
	case err != nil:
		serverError(w, err)
	default:
		writeJSON(w, http.StatusOK, data)
	}
}

func (s *server) createData(w http.ResponseWriter, r *http.Request) {
	key, ok := readField(w, r, "data", maxDataKey)
	if !ok {
		return
	}
	data, err := s.store.createData(r.Context(), key)
	switch {
	case errors.Is(err, errDuplicate):
		writeError(w, http.StatusConflict, fmt.Sprintf("data %q already exists", key))
	case err != nil:
		serverError(w, err)
	default:
		w.Header().Set("Location", location(r, "/data/"+url.PathEscape(key)))
		writeJSON(w, http.StatusCreated, data)
	}
}

func (s *server) live(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "UP"})
}

func (s *server) ready(w http.ResponseWriter, r *http.Request) {
	// A short deadline so a stopped database turns into a quick 503, not a hanging probe.
	ctx, cancel := context.WithTimeout(r.Context(), time.Second)
	defer cancel()
	if err := s.store.ping(ctx); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "DOWN"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "UP"})
}

// fruitID parses the {id} path segment; an id that is not a 64-bit integer names no fruit.
func fruitID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	raw := r.PathValue("id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf("fruit %q not found", raw))
		return 0, false
	}
	return id, true
}

func fruitError(w http.ResponseWriter, err error, id int64, name string) {
	switch {
	case errors.Is(err, errNotFound):
		writeError(w, http.StatusNotFound, fmt.Sprintf("fruit %d not found", id))
	case errors.Is(err, errDuplicate):
		writeError(w, http.StatusConflict, fmt.Sprintf("fruit %q already exists", name))
	default:
		serverError(w, err)
	}
}

// readField decodes a JSON object body and returns its string field, validated; on failure it
// has already written the error response.
func readField(w http.ResponseWriter, r *http.Request, field string, maxChars int) (string, bool) {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
		return "", false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, "request body too large")
		} else {
			writeError(w, http.StatusBadRequest, "could not read request body")
		}
		return "", false
	}
	value, err := parseField(body, field, maxChars)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return "", false
	}
	return value, true
}

// parseField extracts a required, non-blank string of at most maxChars characters from a JSON
// object. Keys match exactly (encoding/json's struct decoding would also accept "NAME").
func parseField(body []byte, field string, maxChars int) (string, error) {
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return "", fmt.Errorf("malformed JSON: %v", err)
		}
		obj = nil
	}
	if obj == nil { // a valid JSON value that is not an object, null included
		return "", errors.New("request body must be a JSON object")
	}
	raw, present := obj[field]
	if !present || raw == nil {
		return "", fmt.Errorf("%s is required", field)
	}
	value, ok := raw.(string)
	if !ok {
		return "", fmt.Errorf("%s must be a string", field)
	}
	if err := validate(field, value, maxChars); err != nil {
		return "", err
	}
	return value, nil
}

func validate(field, value string, maxChars int) error {
	switch {
	case strings.TrimSpace(value) == "":
		return fmt.Errorf("%s must not be blank", field)
	case utf8.RuneCountInString(value) > maxChars:
		return fmt.Errorf("%s must be at most %d characters", field, maxChars)
	case !utf8.ValidString(value):
		return fmt.Errorf("%s must be valid UTF-8", field)
	case strings.ContainsRune(value, 0): // PostgreSQL text cannot hold NUL
		return fmt.Errorf("%s must not contain NUL characters", field)
	}
	return nil
}

// location makes the absolute URL of a created resource from the request's own host.
func location(r *http.Request, path string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + path
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		log.Printf("writing response: %v", err)
	}
}

type errorBody struct {
	Status int    `json:"status"`
	Error  string `json:"error"`
}

func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, errorBody{Status: status, Error: message})
}

func serverError(w http.ResponseWriter, err error) {
	log.Printf("internal error: %v", err)
	writeError(w, http.StatusInternalServerError, "internal server error")
}
