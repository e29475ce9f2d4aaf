CREATE TABLE `adverse_parties` (
	`id` text PRIMARY KEY NOT NULL,
	`party_key` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `attorneys` (
	`id` text PRIMARY KEY NOT NULL,
	`display_name` text NOT NULL,
	`office_id` text NOT NULL,
	`practice_group` text NOT NULL,
	`paralegal_name` text NOT NULL,
	`team_name` text NOT NULL
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
CREATE TABLE `case_notes` (
	`id` text PRIMARY KEY NOT NULL,
	`intake_id` text NOT NULL,
	`topic` text NOT NULL,
	`note` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `clients` (
	`id` text PRIMARY KEY NOT NULL,
	`full_name` text NOT NULL,
	`date_of_birth` text NOT NULL,
	`phone` text NOT NULL,
	`email` text,
	`street` text NOT NULL,
	`city` text NOT NULL,
	`state` text NOT NULL,
	`zip` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `consult_openings` (
	`id` text PRIMARY KEY NOT NULL,
	`attorney_id` text NOT NULL,
	`location` text NOT NULL,
	`starts_at` text NOT NULL,
	`duration_min` integer NOT NULL,
	`status` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `consult_openings_by_location_time` ON `consult_openings` (`location`,`starts_at`,`id`);--> statement-breakpoint
CREATE TABLE `consults` (
	`id` text PRIMARY KEY NOT NULL,
	`opening_id` text NOT NULL,
	`intake_id` text,
	`client_id` text,
	`attorney_id` text NOT NULL,
	`location` text NOT NULL,
	`starts_at` text NOT NULL,
	`area` text NOT NULL,
	`fee_cents` integer NOT NULL,
	`fee_status` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `contact_updates` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`field` text NOT NULL,
	`old_value` text,
	`new_value` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `escalations` (
	`id` text PRIMARY KEY NOT NULL,
	`reason_code` text NOT NULL,
	`client_id` text,
	`intake_id` text,
	`agent` text NOT NULL,
	`summary` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `filing_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`area` text NOT NULL,
	`window_rule` text NOT NULL,
	`starts_from` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `form_sends` (
	`id` text PRIMARY KEY NOT NULL,
	`intake_id` text NOT NULL,
	`channel` text NOT NULL,
	`sent_to` text NOT NULL,
	`form_set` text NOT NULL,
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
CREATE TABLE `intakes` (
	`id` text PRIMARY KEY NOT NULL,
	`caller_name` text NOT NULL,
	`phone` text NOT NULL,
	`email` text,
	`area` text NOT NULL,
	`state` text NOT NULL,
	`incident_date` text NOT NULL,
	`opposing_party` text NOT NULL,
	`deadline` text NOT NULL,
	`window_status` text NOT NULL,
	`priority` text NOT NULL,
	`fee_plan` text NOT NULL,
	`summary` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `matters` (
	`id` text PRIMARY KEY NOT NULL,
	`matter_number` text NOT NULL,
	`client_id` text NOT NULL,
	`area` text NOT NULL,
	`state` text NOT NULL,
	`office_id` text NOT NULL,
	`lead_attorney_id` text NOT NULL,
	`stage` text NOT NULL,
	`next_step` text,
	`opened_on` text NOT NULL,
	`last_update_on` text NOT NULL,
	`closed_on` text
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`recipient` text NOT NULL,
	`client_id` text,
	`caller_name` text NOT NULL,
	`callback_phone` text NOT NULL,
	`message` text NOT NULL,
	`reply_by` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `offices` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`state` text NOT NULL,
	`address` text NOT NULL,
	`suite` text NOT NULL,
	`phone` text NOT NULL,
	`weekday_hours` text NOT NULL,
	`saturday_hours` text,
	`parking` text NOT NULL,
	`languages` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `practice_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`area` text NOT NULL,
	`state` text NOT NULL,
	`accepted` integer NOT NULL,
	`fee_plan` text NOT NULL,
	`practice_group` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `records_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`intake_id` text NOT NULL,
	`record_type` text NOT NULL,
	`provider` text NOT NULL,
	`authorization_sent_to` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL
);
