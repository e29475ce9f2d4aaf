CREATE TABLE `airports` (
	`id` text PRIMARY KEY NOT NULL,
	`city` text NOT NULL,
	`spoken_name` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `assistance_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`passenger_id` text NOT NULL,
	`segment_id` text NOT NULL,
	`kind` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `bookings` (
	`id` text PRIMARY KEY NOT NULL,
	`fare_family` text NOT NULL,
	`booked_at` text NOT NULL,
	`contact_phone` text NOT NULL,
	`status` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `call_session` (
	`id` integer PRIMARY KEY NOT NULL,
	`subject_kind` text,
	`subject_id` text,
	`verified_by` text,
	`failures` integer DEFAULT 0 NOT NULL,
	`locked` integer DEFAULT 0 NOT NULL,
	`flags` text DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE TABLE `charges` (
	`id` text PRIMARY KEY NOT NULL,
	`booking_id` text NOT NULL,
	`kind` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `checked_bags` (
	`id` text PRIMARY KEY NOT NULL,
	`segment_id` text NOT NULL,
	`passenger_id` text NOT NULL,
	`count` integer NOT NULL,
	`price_cents` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `escalations` (
	`id` text PRIMARY KEY NOT NULL,
	`reason` text NOT NULL,
	`subject_kind` text,
	`subject_id` text,
	`agent` text NOT NULL,
	`summary` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `flights` (
	`id` text PRIMARY KEY NOT NULL,
	`flight_number` text NOT NULL,
	`origin` text NOT NULL,
	`destination` text NOT NULL,
	`departs_at` text NOT NULL,
	`arrives_at` text NOT NULL,
	`status` text NOT NULL,
	`delay_minutes` integer NOT NULL,
	`disruption_cause` text,
	`fare_cents` integer NOT NULL,
	`seats_left` integer NOT NULL,
	`pet_spaces_left` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `flights_by_route` ON `flights` (`origin`,`destination`,`departs_at`);--> statement-breakpoint
CREATE TABLE `holds` (
	`token` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`subject` text,
	`target` text NOT NULL,
	`payload` text NOT NULL,
	`payload_hash` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `meal_vouchers` (
	`id` text PRIMARY KEY NOT NULL,
	`segment_id` text NOT NULL,
	`passenger_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`sent_to` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `minor_services` (
	`id` text PRIMARY KEY NOT NULL,
	`passenger_id` text NOT NULL,
	`segment_id` text NOT NULL,
	`pickup_name` text NOT NULL,
	`pickup_phone` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `passengers` (
	`id` text PRIMARY KEY NOT NULL,
	`booking_id` text NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`date_of_birth` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `pet_reservations` (
	`id` text PRIMARY KEY NOT NULL,
	`passenger_id` text NOT NULL,
	`segment_id` text NOT NULL,
	`pet_kind` text NOT NULL,
	`price_cents` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`booking_id` text NOT NULL,
	`segment_id` text,
	`method` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`reason` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `seat_assignments` (
	`id` text PRIMARY KEY NOT NULL,
	`segment_id` text NOT NULL,
	`passenger_id` text NOT NULL,
	`seat` text NOT NULL,
	`price_cents` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `segments` (
	`id` text PRIMARY KEY NOT NULL,
	`booking_id` text NOT NULL,
	`flight_id` text NOT NULL,
	`fare_paid_cents` integer NOT NULL,
	`status` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `taken_seats` (
	`id` text PRIMARY KEY NOT NULL,
	`flight_id` text NOT NULL,
	`seat` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `travel_credits` (
	`id` text PRIMARY KEY NOT NULL,
	`booking_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`expires_on` text NOT NULL,
	`status` text NOT NULL
);
