CREATE TABLE `bench_slots` (
	`id` text PRIMARY KEY NOT NULL,
	`store_id` text NOT NULL,
	`starts_at` text NOT NULL,
	`status` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `bench_slots_by_store_time` ON `bench_slots` (`store_id`,`starts_at`,`id`);--> statement-breakpoint
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
	`descriptor` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`posted_on` text NOT NULL,
	`card_ending` text NOT NULL,
	`order_id` text
);
--> statement-breakpoint
CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`full_name` text NOT NULL,
	`phone` text NOT NULL,
	`email` text,
	`zip_code` text NOT NULL,
	`card_last4` text NOT NULL,
	`home_store_id` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `delivery_changes` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`old_window_start` text NOT NULL,
	`new_window_start` text NOT NULL,
	`new_window_end` text NOT NULL,
	`fee_cents` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `escalations` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text,
	`reason_code` text NOT NULL,
	`agent` text NOT NULL,
	`summary` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
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
CREATE TABLE `membership_changes` (
	`id` text PRIMARY KEY NOT NULL,
	`membership_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`action` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`new_tier` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `memberships` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`tier` text NOT NULL,
	`joined_on` text NOT NULL,
	`paid_cents` integer NOT NULL,
	`renews_on` text NOT NULL,
	`status` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `order_cancellations` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`reason` text NOT NULL,
	`released_cents` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `order_items` (
	`id` text PRIMARY KEY NOT NULL,
	`order_id` text NOT NULL,
	`sku` text NOT NULL,
	`unit_price_cents` integer NOT NULL,
	`opened` integer NOT NULL,
	`status` text NOT NULL,
	`price_adjusted` integer NOT NULL,
	`returned_on` text,
	`refund_cents` integer,
	`refund_issued_on` text
);
--> statement-breakpoint
CREATE TABLE `orders` (
	`id` text PRIMARY KEY NOT NULL,
	`order_number` text NOT NULL,
	`customer_id` text NOT NULL,
	`placed_on` text NOT NULL,
	`status` text NOT NULL,
	`fulfilment` text NOT NULL,
	`shipped_on` text,
	`delivered_on` text,
	`delivery_window_start` text,
	`delivery_window_end` text,
	`total_cents` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orders_order_number_unique` ON `orders` (`order_number`);--> statement-breakpoint
CREATE TABLE `outbound_contacts` (
	`id` text PRIMARY KEY NOT NULL,
	`from_number` text NOT NULL,
	`purpose` text NOT NULL,
	`contacted_on` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `policies` (
	`topic` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`desk` text
);
--> statement-breakpoint
CREATE TABLE `price_adjustments` (
	`id` text PRIMARY KEY NOT NULL,
	`order_item_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `products` (
	`sku` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`category` text NOT NULL,
	`activatable` integer NOT NULL,
	`hazardous` integer NOT NULL,
	`recalled` integer NOT NULL,
	`restock_class` text NOT NULL,
	`price_cents` integer NOT NULL,
	`open_box` integer NOT NULL,
	`clearance` integer NOT NULL,
	`marketplace_seller` text
);
--> statement-breakpoint
CREATE TABLE `protection_plans` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`order_item_id` text NOT NULL,
	`level` text NOT NULL,
	`years` integer NOT NULL,
	`accidental` integer NOT NULL,
	`starts_on` text NOT NULL,
	`ends_on` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`source` text NOT NULL,
	`source_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`status` text NOT NULL,
	`expected_by` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `return_labels` (
	`id` text PRIMARY KEY NOT NULL,
	`rma_id` text NOT NULL,
	`sent_to` text NOT NULL,
	`expires_on` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `rmas` (
	`id` text PRIMARY KEY NOT NULL,
	`order_item_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`reason` text NOT NULL,
	`item_condition` text NOT NULL,
	`fee_cents` integer NOT NULL,
	`refund_cents` integer NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `scam_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`channel` text NOT NULL,
	`calling_number` text,
	`claimed_to_be` text NOT NULL,
	`money_lost_cents` integer NOT NULL,
	`summary` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `service_appointments` (
	`id` text PRIMARY KEY NOT NULL,
	`customer_id` text NOT NULL,
	`order_item_id` text NOT NULL,
	`store_id` text NOT NULL,
	`slot_id` text NOT NULL,
	`starts_at` text NOT NULL,
	`issue` text NOT NULL,
	`coverage` text NOT NULL,
	`diagnostic_fee_cents` integer NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `stores` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`address` text NOT NULL,
	`store_phone` text NOT NULL,
	`weekday_hours` text NOT NULL,
	`weekend_hours` text NOT NULL,
	`has_bench` integer NOT NULL
);
