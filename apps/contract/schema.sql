-- perflab contract schema (PostgreSQL). Every app reads this database; no app creates or alters it.
-- Re-runnable: drops and recreates everything, so each app starts from the same state.
DROP TABLE IF EXISTS store_fruit_prices, stores, todo_categories, todos, categories, users, data_objects, fruits CASCADE;

-- RT-2019: the fruits CRUD service.
CREATE TABLE fruits (
    id   BIGSERIAL PRIMARY KEY,
    name VARCHAR(40) NOT NULL UNIQUE
);

-- Fruits with their prices per store: the shape the Quarkus team's lab measures. Each price names
-- its store (many-to-one) and the store carries its address as embedded columns.
CREATE TABLE stores (
    id       BIGSERIAL PRIMARY KEY,
    name     VARCHAR(100) NOT NULL UNIQUE,
    currency CHAR(3) NOT NULL,
    address  VARCHAR(200) NOT NULL,
    city     VARCHAR(100) NOT NULL,
    country  VARCHAR(100) NOT NULL
);

CREATE TABLE store_fruit_prices (
    store_id BIGINT NOT NULL REFERENCES stores (id),
    fruit_id BIGINT NOT NULL REFERENCES fruits (id) ON DELETE CASCADE,
    price    NUMERIC(10, 2) NOT NULL,
    PRIMARY KEY (store_id, fruit_id)
);
CREATE INDEX store_fruit_prices_fruit_id ON store_fruit_prices (fruit_id);

-- LAB-2020 lab 1.3: todos with their user and categories.
CREATE TABLE users (
    id   BIGSERIAL PRIMARY KEY,
    name VARCHAR(100) NOT NULL UNIQUE
);

CREATE TABLE categories (
    id   BIGSERIAL PRIMARY KEY,
    name VARCHAR(100) NOT NULL UNIQUE
);

CREATE TABLE todos (
    id         BIGSERIAL PRIMARY KEY,
    title      VARCHAR(200) NOT NULL,
    completed  BOOLEAN NOT NULL DEFAULT FALSE,
    sort_order INTEGER NOT NULL,
    user_id    BIGINT NOT NULL REFERENCES users (id)
);
CREATE INDEX todos_user_id ON todos (user_id);

CREATE TABLE todo_categories (
    todo_id     BIGINT NOT NULL REFERENCES todos (id) ON DELETE CASCADE,
    category_id BIGINT NOT NULL REFERENCES categories (id),
    PRIMARY KEY (todo_id, category_id)
);

-- KT-2020: data objects addressed by their value.
CREATE TABLE data_objects (
    id   BIGSERIAL PRIMARY KEY,
    data VARCHAR(100) NOT NULL UNIQUE
);
