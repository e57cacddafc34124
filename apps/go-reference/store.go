package main

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
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

// PricedFruit is a fruit with its prices per store; StorePrices is never nil, so a fruit sold
// nowhere is written with an empty list.
type PricedFruit struct {
	ID          int64        `json:"id"`
	Name        string       `json:"name"`
	StorePrices []StorePrice `json:"storePrices"`
}

// StorePrice is a price in one store. NUMERIC(10,2) is scanned into pgtype.Numeric, which writes
// itself as a JSON number with the column's decimals.
type StorePrice struct {
	Price pgtype.Numeric `json:"price"`
	Store Store          `json:"store"`
}

type Store struct {
	ID       int64   `json:"id"`
	Name     string  `json:"name"`
	Currency string  `json:"currency"`
	Address  Address `json:"address"`
}

type Address struct {
	Address string `json:"address"`
	City    string `json:"city"`
	Country string `json:"country"`
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

// pricedFruits loads the fruits, then the prices of those fruits with their stores: two queries,
// each on its own (no transaction), like the other reads.
func (s *store) pricedFruits(ctx context.Context) ([]PricedFruit, error) {
	fruits, err := s.fruits(ctx)
	if err != nil {
		return nil, err
	}
	return s.withPrices(ctx, fruits)
}

// pricedFruit loads one fruit by name, then its prices with their stores: two queries.
func (s *store) pricedFruit(ctx context.Context, name string) (PricedFruit, error) {
	var f Fruit
	err := s.db.QueryRow(ctx, "SELECT id, name FROM fruits WHERE name = $1", name).Scan(&f.ID, &f.Name)
	if err != nil {
		return PricedFruit{}, dbError(err)
	}
	priced, err := s.withPrices(ctx, []Fruit{f})
	if err != nil {
		return PricedFruit{}, err
	}
	return priced[0], nil
}

// fruitPrice is a row of the prices query: the fruit a price belongs to, and the price.
type fruitPrice struct {
	fruitID int64
	StorePrice
}

func (s *store) withPrices(ctx context.Context, fruits []Fruit) ([]PricedFruit, error) {
	if len(fruits) == 0 {
		return []PricedFruit{}, nil
	}
	ids := make([]int64, len(fruits))
	for i, f := range fruits {
		ids[i] = f.ID
	}
	rows, _ := s.db.Query(ctx, `
		SELECT p.fruit_id, p.price, s.id, s.name, s.currency, s.address, s.city, s.country
		FROM store_fruit_prices p
		JOIN stores s ON s.id = p.store_id
		WHERE p.fruit_id = ANY($1)`, ids)
	prices, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (fruitPrice, error) {
		var p fruitPrice
		err := row.Scan(&p.fruitID, &p.Price, &p.Store.ID, &p.Store.Name, &p.Store.Currency,
			&p.Store.Address.Address, &p.Store.Address.City, &p.Store.Address.Country)
		return p, err
	})
	if err != nil {
		return nil, err
	}
	return attachPrices(fruits, prices), nil
}

// attachPrices gives each fruit its prices, in the fruits' order.
func attachPrices(fruits []Fruit, prices []fruitPrice) []PricedFruit {
	priced := make([]PricedFruit, len(fruits))
	index := make(map[int64]int, len(fruits))
	for i, f := range fruits {
		priced[i] = PricedFruit{ID: f.ID, Name: f.Name, StorePrices: []StorePrice{}}
		index[f.ID] = i
	}
	for _, p := range prices {
		if i, ok := index[p.fruitID]; ok {
			priced[i].StorePrices = append(priced[i].StorePrices, p.StorePrice)
		}
	}
	return priced
}

// joinedRow is a row of the joined query: a fruit, and one of its prices or none (nil).
type joinedRow struct {
	fruit Fruit
	price *StorePrice
}

// pricedFruitsJoined loads fruits, prices and stores in one query with left joins, in one
// read-only transaction.
func (s *store) pricedFruitsJoined(ctx context.Context) ([]PricedFruit, error) {
	var fruits []PricedFruit
	err := pgx.BeginTxFunc(ctx, s.db, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, `
			SELECT f.id, f.name, p.price, s.id, s.name, s.currency, s.address, s.city, s.country
			FROM fruits f
			LEFT JOIN store_fruit_prices p ON p.fruit_id = f.id
			LEFT JOIN stores s ON s.id = p.store_id
			ORDER BY f.name`)
		joined, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (joinedRow, error) {
			var r joinedRow
			var p StorePrice
			var storeID pgtype.Int8
			var name, currency, address, city, country pgtype.Text
			err := row.Scan(&r.fruit.ID, &r.fruit.Name, &p.Price, &storeID, &name, &currency, &address, &city, &country)
			if err == nil && p.Price.Valid {
				p.Store = Store{ID: storeID.Int64, Name: name.String, Currency: currency.String,
					Address: Address{Address: address.String, City: city.String, Country: country.String}}
				r.price = &p
			}
			return r, err
		})
		fruits = foldJoined(joined)
		return err
	})
	return fruits, err
}

// foldJoined folds the flat rows into fruits with their prices. Rows of one fruit are adjacent
// thanks to the ORDER BY on the unique name.
func foldJoined(rows []joinedRow) []PricedFruit {
	fruits := []PricedFruit{}
	for _, r := range rows {
		if n := len(fruits); n == 0 || fruits[n-1].ID != r.fruit.ID {
			fruits = append(fruits, PricedFruit{ID: r.fruit.ID, Name: r.fruit.Name, StorePrices: []StorePrice{}})
		}
		if r.price != nil {
			last := &fruits[len(fruits)-1]
			last.StorePrices = append(last.StorePrices, *r.price)
		}
	}
	return fruits
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
