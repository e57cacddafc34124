-- perflab contract seed data. Explicit ids so every app and test sees the same rows;
-- the sequences are then moved past them so inserted rows get fresh ids.
INSERT INTO fruits (id, name) VALUES (1, 'Cherry'), (2, 'Apple'), (3, 'Banana');

-- Apple is sold in every store, Banana in two, Cherry in none (a fruit without prices is listed
-- with an empty list: a left join, not an inner one).
INSERT INTO stores (id, name, currency, address, city, country) VALUES
    (1, 'Corner Grocer', 'USD', '12 Elm Street', 'Springfield', 'USA'),
    (2, 'Marché du Centre', 'EUR', '3 rue de la République', 'Lyon', 'France'),
    (3, 'Obstmarkt', 'EUR', 'Hauptstraße 5', 'Köln', 'Germany'),
    (4, 'High Street Fruit', 'GBP', '8 High Street', 'York', 'UK');
INSERT INTO store_fruit_prices (store_id, fruit_id, price) VALUES
    (1, 2, 1.29), (2, 2, 1.15), (3, 2, 0.99), (4, 2, 2.00),
    (1, 3, 0.59), (3, 3, 0.49);

INSERT INTO users (id, name) VALUES (1, 'alice'), (2, 'bob');
INSERT INTO categories (id, name) VALUES (1, 'home'), (2, 'work');

-- sort_order is deliberately not the id order, with one tie (4, 5) broken by id.
INSERT INTO todos (id, title, completed, sort_order, user_id) VALUES
    (1, 'Buy groceries', FALSE, 2, 1),
    (2, 'Write the report', FALSE, 1, 1),
    (3, 'Fix the bike', TRUE, 3, 2),
    (4, 'Plan the sprint', FALSE, 4, 2),
    (5, 'Read a book', FALSE, 4, 1);

INSERT INTO todo_categories (todo_id, category_id) VALUES
    (1, 1), (2, 2), (3, 1), (4, 2), (4, 1);

INSERT INTO data_objects (id, data) VALUES (1, 'SlimShady');

SELECT setval(pg_get_serial_sequence('fruits', 'id'), (SELECT max(id) FROM fruits));
SELECT setval(pg_get_serial_sequence('stores', 'id'), (SELECT max(id) FROM stores));
SELECT setval(pg_get_serial_sequence('users', 'id'), (SELECT max(id) FROM users));
SELECT setval(pg_get_serial_sequence('categories', 'id'), (SELECT max(id) FROM categories));
SELECT setval(pg_get_serial_sequence('todos', 'id'), (SELECT max(id) FROM todos));
SELECT setval(pg_get_serial_sequence('data_objects', 'id'), (SELECT max(id) FROM data_objects));
