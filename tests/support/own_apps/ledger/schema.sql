CREATE TABLE entries (
    entry_id bigint PRIMARY KEY,
    amount   numeric(10, 2) NOT NULL
);
