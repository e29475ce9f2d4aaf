-- Maple Lane Repairs starts every call with an empty appointment book: the only scored table,
-- so a booking is the one change the state check can see.
SELECT 1;
