CREATE TABLE items (
    id   serial PRIMARY KEY,
    name text NOT NULL,
    qty  integer NOT NULL
);
