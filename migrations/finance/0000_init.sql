CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`member_id` text NOT NULL,
	`kind` text NOT NULL,
	`nickname` text NOT NULL,
	`last4` text NOT NULL,
	`balance_cents` integer NOT NULL,
	`available_cents` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `branches` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`address` text NOT NULL,
	`weekday_hours` text NOT NULL,
	`saturday_hours` text,
	`drive_through` text NOT NULL,
	`has_notary` integer NOT NULL
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
CREATE TABLE `card_replacements` (
	`id` text PRIMARY KEY NOT NULL,
	`card_id` text NOT NULL,
	`reason` text NOT NULL,
	`delivery` text NOT NULL,
	`fee_cents` integer NOT NULL,
	`arrives_by` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `cards` (
	`id` text PRIMARY KEY NOT NULL,
	`member_id` text NOT NULL,
	`account_id` text NOT NULL,
	`kind` text NOT NULL,
	`last4` text NOT NULL,
	`status` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `disputes` (
	`id` text PRIMARY KEY NOT NULL,
	`member_id` text NOT NULL,
	`transaction_id` text NOT NULL,
	`reason` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`provisional_credit_on` text NOT NULL,
	`decide_by` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL
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
CREATE TABLE `fee_refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`member_id` text NOT NULL,
	`fee_transaction_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
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
CREATE TABLE `members` (
	`id` text PRIMARY KEY NOT NULL,
	`full_name` text NOT NULL,
	`date_of_birth` text NOT NULL,
	`zip_code` text NOT NULL,
	`mobile_phone` text,
	`member_since` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `one_time_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`member_id` text NOT NULL,
	`sent_to` text NOT NULL,
	`code` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payees` (
	`id` text PRIMARY KEY NOT NULL,
	`member_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`account_last4` text NOT NULL,
	`added_on` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`member_id` text NOT NULL,
	`from_account_id` text NOT NULL,
	`kind` text NOT NULL,
	`payee_id` text,
	`to_account_id` text,
	`amount_cents` integer NOT NULL,
	`send_on` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `pin_resets` (
	`id` text PRIMARY KEY NOT NULL,
	`card_id` text NOT NULL,
	`sent_to` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `scam_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`channel` text NOT NULL,
	`asked_for` text NOT NULL,
	`money_sent` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`posted_on` text NOT NULL,
	`description` text NOT NULL,
	`kind` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`card_id` text,
	`status` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `transactions_by_account_date` ON `transactions` (`account_id`,`posted_on`,`id`);--> statement-breakpoint
CREATE TABLE `travel_notices` (
	`id` text PRIMARY KEY NOT NULL,
	`member_id` text NOT NULL,
	`destination` text NOT NULL,
	`start_date` text NOT NULL,
	`end_date` text NOT NULL,
	`created_at` text NOT NULL
);
