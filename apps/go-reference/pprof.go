package main

import (
	"bytes"
	"log"
	"net/http"
	"net/http/pprof"
	runtimepprof "runtime/pprof"
	"sync"
)

// servePprof serves the runtime's profiles only when the lab asks for them (PERFLAB_PPROF_ADDR,
// a loopback address it sets on launches it profiles), never on the app's own port: the lab's
// /debug/pprof/ pages, and a CPU profile started and stopped by the lab so that it covers exactly
// its measured window.
func servePprof(getenv func(string) string) {
	addr := getenv("PERFLAB_PPROF_ADDR")
	if addr == "" {
		return
	}
	var mu sync.Mutex
	var cpu *bytes.Buffer
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/cpu/start", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if cpu != nil {
			http.Error(w, "a CPU profile is already running", http.StatusConflict)
			return
		}
		cpu = new(bytes.Buffer) // the runtime samples at 100 Hz
		if err := runtimepprof.StartCPUProfile(cpu); err != nil {
			cpu = nil
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	mux.HandleFunc("/cpu/stop", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if cpu == nil {
			http.Error(w, "no CPU profile is running", http.StatusConflict)
			return
		}
		runtimepprof.StopCPUProfile()
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(cpu.Bytes())
		cpu = nil
	})
	go func() {
		if err := http.ListenAndServe(addr, mux); err != nil {
			log.Printf("pprof on %s: %v", addr, err)
		}
	}()
}
