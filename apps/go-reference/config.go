package main

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
)

type config struct {
	port       string
	mode       string
	connString string
	poolMin    int32
	poolMax    int32
}

// loadConfig reads the lab's environment variables, falling back to the contract's defaults.
func loadConfig(getenv func(string) string) (config, error) {
	env := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}

	connString, err := pgxConnString(
		env("DB_URL", "jdbc:postgresql://127.0.0.1:5432/perflab"),
		env("DB_USER", "perflab"),
		env("DB_PASSWORD", "perflab"),
	)
	if err != nil {
		return config{}, err
	}
	poolMin, err := poolSize("DB_POOL_MIN", env("DB_POOL_MIN", "5"))
	if err != nil {
		return config{}, err
	}
	poolMax, err := poolSize("DB_POOL_MAX", env("DB_POOL_MAX", "20"))
	if err != nil {
		return config{}, err
	}
	if poolMax < 1 || poolMin > poolMax {
		return config{}, fmt.Errorf("pool bounds: need 1 <= DB_POOL_MAX and DB_POOL_MIN <= DB_POOL_MAX, got %d / %d", poolMin, poolMax)
	}

	return config{
		port:       env("HTTP_PORT", "8080"),
		mode:       env("PERFLAB_MODE", "native"),
		connString: connString,
		poolMin:    poolMin,
		poolMax:    poolMax,
	}, nil
}

// pgxConnString turns a JDBC URL (jdbc:postgresql://host:port/db?params), the form every app of
// the lab is given, into a libpq-style URL that pgx understands, with the credentials added.
func pgxConnString(jdbcURL, user, password string) (string, error) {
	const prefix = "jdbc:postgresql://"
	if !strings.HasPrefix(jdbcURL, prefix) {
		return "", fmt.Errorf("DB_URL %q: expected %shost[:port]/database", jdbcURL, prefix)
	}
	rest := strings.TrimPrefix(jdbcURL, prefix)
	if rest == "" || rest[0] == '/' || rest[0] == '?' {
		return "", fmt.Errorf("DB_URL %q: missing host", jdbcURL)
	}
	return "postgres://" + url.UserPassword(user, password).String() + "@" + rest, nil
}

func poolSize(name, value string) (int32, error) {
	n, err := strconv.ParseInt(value, 10, 32)
	if err != nil || n < 0 || n > math.MaxInt32 {
		return 0, fmt.Errorf("%s=%q: not a pool size", name, value)
	}
	return int32(n), nil
}
