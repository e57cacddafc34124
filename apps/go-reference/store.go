package main

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// errNotFound and errDuplicate are the store's answers that handlers turn into 404 and 409.
var (
	errNotFound  = errors.New("not found")
	errDuplicate = errors.New("duplicate")
)

type Fruit struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

type User struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

type Category struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

type Todo struct {
	ID         int64      `json:"id"`
	Title      string     `json:"title"`
	Completed  bool       `json:"completed"`
	Order      int32      `json:"order"`
	User       User       `json:"user"`
	Categories []Category `json:"categories"`
}

type DataObject struct {
	Data string `json:"data"`
}

type store struct {
	db *pgxpool.Pool
}

func (s *store) ping(ctx context.Context) error {
	return s.db.Ping(ctx)
}

func (s *store) fruits(ctx context.Context) ([]Fruit, error) {
	rows, _ := s.db.Query(ctx, "SELECT id, name FROM fruits ORDER BY name")
	return pgx.CollectRows(rows, pgx.RowToStructByPos[Fruit])
}

func (s *store) fruit(ctx context.Context, id int64) (Fruit, error) {
	var f Fruit
	err := s.db.QueryRow(ctx, "SELECT id, name FROM fruits WHERE id = $1", id).Scan(&f.ID, &f.Name)
	return f, dbError(err)
}

func (s *store) createFruit(ctx context.Context, name string) (Fruit, error) {
	f := Fruit{Name: name}
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "INSERT INTO fruits (name) VALUES ($1) RETURNING id", name).Scan(&f.ID)
	})
	return f, dbError(err)
}

func (s *store) updateFruit(ctx context.Context, id int64, name string) (Fruit, error) {
	f := Fruit{ID: id, Name: name}
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "UPDATE fruits SET name = $2 WHERE id = $1 RETURNING id", id, name).Scan(&f.ID)
	})
	return f, dbError(err)
}

func (s *store) deleteFruit(ctx context.Context, id int64) error {
	return pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "DELETE FROM fruits WHERE id = $1", id)
		if err == nil && tag.RowsAffected() == 0 {
			return errNotFound
		}
		return err
	})
}

// todos loads every todo with its user and categories in one query (a fetch join) and folds the
// flat rows, one per todo and category, into nested todos.
func (s *store) todos(ctx context.Context) ([]Todo, error) {
	rows, err := s.db.Query(ctx, `
		SELECT t.id, t.title, t.completed, t.sort_order, u.id, u.name, c.id, c.name
		FROM todos t
		JOIN users u ON u.id = t.user_id
		LEFT JOIN todo_categories tc ON tc.todo_id = t.id
		LEFT JOIN categories c ON c.id = tc.category_id
		ORDER BY t.sort_order, t.id, c.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()

	todos := []Todo{}
	for rows.Next() {
		var t Todo
		var categoryID *int64
		var categoryName *string
		if err := rows.Scan(&t.ID, &t.Title, &t.Completed, &t.Order, &t.User.ID, &t.User.Name,
			&categoryID, &categoryName); err != nil {
			return nil, err
		}
		// Rows of one todo are adjacent thanks to the ORDER BY.
		if n := len(todos); n == 0 || todos[n-1].ID != t.ID {
			t.Categories = []Category{}
			todos = append(todos, t)
		}
		if categoryID != nil {
			last := &todos[len(todos)-1]
			last.Categories = append(last.Categories, Category{ID: *categoryID, Name: *categoryName})
		}
	}
	return todos, rows.Err()
}

func (s *store) data(ctx context.Context, key string) (DataObject, error) {
	var d DataObject
	err := s.db.QueryRow(ctx, "SELECT data FROM data_objects WHERE data = $1", key).Scan(&d.Data)
	return d, dbError(err)
}

func (s *store) createData(ctx context.Context, key string) (DataObject, error) {
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO data_objects (data) VALUES ($1)", key)
		return err
	})
	return DataObject{Data: key}, dbError(err)
}

// dbError maps "no row" and unique-constraint violations to the store's sentinel errors.
func dbError(err error) error {
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return errNotFound
	case errors.As(err, &pgErr) && pgErr.Code == "23505": // unique_violation
		return errDuplicate
	}
	return err
}
