package main

import "testing"

func TestPgxConnString(t *testing.T) {
	tests := []struct {
		jdbc, user, password, want string
	}{
		{"jdbc:postgresql://127.0.0.1:5432/perflab", "perflab", "perflab",
			"postgres://perflab:perflab@127.0.0.1:5432/perflab"},
		{"jdbc:postgresql://db.example/app?sslmode=disable", "app", "s3cr@t/:x",
			"postgres://app:s3cr%40t%2F%3Ax@db.example/app?sslmode=disable"},
		{"jdbc:postgresql://[::1]:6543/perflab", "perflab", "", "postgres://perflab:@[::1]:6543/perflab"},
	}
	for _, tt := range tests {
		got, err := pgxConnString(tt.jdbc, tt.user, tt.password)
		if err != nil || got != tt.want {
			t.Errorf("pgxConnString(%q) = %q, %v; want %q", tt.jdbc, got, err, tt.want)
		}
	}
}

func TestPgxConnStringRejectsOtherURLs(t *testing.T) {
	for _, bad := range []string{"", "postgres://h/db", "jdbc:mysql://h/db", "jdbc:postgresql:///db"} {
		if got, err := pgxConnString(bad, "u", "p"); err == nil {
			t.Errorf("pgxConnString(%q) = %q, want an error", bad, got)
		}
	}
}

func TestLoadConfigDefaults(t *testing.T) {
	cfg, err := loadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	want := config{
		port:       "8080",
		mode:       "native",
		connString: "postgres://perflab:perflab@127.0.0.1:5432/perflab",
		poolMin:    5,
		poolMax:    20,
	}
	if cfg != want {
		t.Errorf("loadConfig() = %+v, want %+v", cfg, want)
	}
}

func TestLoadConfigRejectsBadPoolBounds(t *testing.T) {
	for _, bounds := range [][2]string{{"x", "20"}, {"5", "-1"}, {"10", "5"}, {"0", "0"}} {
		env := map[string]string{"DB_POOL_MIN": bounds[0], "DB_POOL_MAX": bounds[1]}
		if _, err := loadConfig(func(k string) string { return env[k] }); err == nil {
			t.Errorf("pool bounds %v accepted", bounds)
		}
	}
}
