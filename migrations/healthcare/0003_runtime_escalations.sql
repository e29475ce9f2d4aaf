CREATE TABLE `escalations` (
	`id` text PRIMARY KEY NOT NULL,
	`reason` text NOT NULL,
	`subject_kind` text,
	`subject_id` text,
	`agent` text NOT NULL,
	`summary` text,
	`created_at` text NOT NULL
);
