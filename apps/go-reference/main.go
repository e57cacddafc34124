// Command go-reference serves the perflab contract with net/http and pgx: the native-code
// reference the JVM frameworks are compared with.
package main

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	start := time.Now()

	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		log.Fatal(err)
	}

	servePprof(os.Getenv)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	poolCfg, err := pgxpool.ParseConfig(cfg.connString)
	if err != nil {
		log.Fatalf("database configuration: %v", err)
	}
	poolCfg.MinConns = cfg.poolMin
	poolCfg.MaxConns = cfg.poolMax
	// The pool opens its MinConns in the background; start-up does not wait for the database,
	// /health/ready reports whether it answers.
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		log.Fatalf("database pool: %v", err)
	}
	defer pool.Close()

	// Listen before logging so "started" means the port accepts connections.
	ln, err := net.Listen("tcp", ":"+cfg.port)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{
		Handler:           newServer(&store{db: pool}, cfg.mode).routes(),
		ReadHeaderTimeout: 10 * time.Second,
	}

	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdownCtx)
	}()

	log.Printf("go-reference (%s) listening on %s, started in %.1fms",
		cfg.mode, ln.Addr(), float64(time.Since(start).Microseconds())/1000)
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
