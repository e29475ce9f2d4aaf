CREATE TABLE `appointments` (
	`id` text PRIMARY KEY NOT NULL,
	`date` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `appointments_date_unique` ON `appointments` (`date`);--> statement-breakpoint
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
