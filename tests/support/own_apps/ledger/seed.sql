INSERT INTO entries VALUES (1, 40.00), (2, 12.50), (3, -10.50);
