package results

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// A migration is one numbered SQL file of migrations/.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations are the embedded migrations in order; loadMigrations checks at
// init that they are numbered 1..N without gaps, so a bad file name fails
// every test instead of a user's upgrade.
var migrations = mustLoadMigrations(migrationFS)

// migrationVersion is the version of the embedded migration named name
// (the file name without number and extension), or a version past the
// last when there is none.
func migrationVersion(name string) int {
	for _, m := range migrations {
		if strings.HasSuffix(m.name, "_"+name) {
			return m.version
		}
	}
	return len(migrations) + 1
}

// DBSchemaVersion is the database schema version this build writes: the
// number of the last embedded migration. PRAGMA user_version holds it in
// each database.
func DBSchemaVersion() int { return len(migrations) }

func mustLoadMigrations(fsys fs.FS) []migration {
	ms, err := loadMigrations(fsys)
	if err != nil {
		panic("results: " + err.Error())
	}
	return ms
}

// loadMigrations reads migrations/NNNN_name.sql files, sorted by number.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, "migrations")
	if err != nil {
		return nil, fmt.Errorf("reading migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		if !ok {
			return nil, fmt.Errorf("migration %q: name is not NNNN_name.sql", name)
		}
		v, err := strconv.Atoi(num)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %q: name is not NNNN_name.sql", name)
		}
		b, err := fs.ReadFile(fsys, path.Join("migrations", name))
		if err != nil {
			return nil, fmt.Errorf("reading migration %q: %w", name, err)
		}
		ms = append(ms, migration{version: v, name: strings.TrimSuffix(name, ".sql"), sql: string(b)})
	}
	// fs.ReadDir sorts by name and the numbers are zero-padded, but check
	// the sequence itself rather than rely on the padding.
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %q: expected version %d (versions must be 1..N without gaps)", m.name, i+1)
		}
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("no migrations embedded")
	}
	return ms, nil
}

// migrate applies the migrations above version from (the user_version read
// when opening), each in its own IMMEDIATE transaction together with its
// schema_migrations row, the user_version bump and the application_id
// stamp. An up-to-date database takes no write lock, so opening it while
// another process writes does not wait. The version is read again inside
// each transaction, so two processes upgrading the same file at once apply
// each migration exactly once.
func migrate(ctx context.Context, db *sql.DB, ms []migration, from int) error {
	for _, m := range ms {
		if m.version <= from {
			continue
		}
		if err := applyMigration(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, m migration) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	var cur int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&cur); err != nil {
		return fmt.Errorf("migration %s: reading version: %w", m.name, err)
	}
	if cur >= m.version {
		return tx.Rollback()
	}
	if cur != m.version-1 {
		return fmt.Errorf("migration %s: database is at version %d, expected %d", m.name, cur, m.version-1)
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	if _, err := tx.ExecContext(ctx,
		"INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
		m.version, m.name, formatTime(time.Now())); err != nil {
		return fmt.Errorf("migration %s: recording: %w", m.name, err)
	}
	// PRAGMA arguments cannot be bound; both values are integers we format.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return fmt.Errorf("migration %s: setting version: %w", m.name, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return fmt.Errorf("migration %s: setting application id: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %s: %w", m.name, err)
	}
	return nil
}
