CREATE TABLE `appointments` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`opening_id` text NOT NULL,
	`location_id` text NOT NULL,
	`provider_id` text NOT NULL,
	`visit_type` text NOT NULL,
	`starts_at` text NOT NULL,
	`duration_min` integer NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL
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
CREATE TABLE `callbacks` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`team` text NOT NULL,
	`topic` text NOT NULL,
	`best_time` text NOT NULL,
	`phone` text NOT NULL,
	`due_by` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `care_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`priority` text NOT NULL,
	`topic` text NOT NULL,
	`message` text NOT NULL,
	`respond_by` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `charges` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`kind` text NOT NULL,
	`service_date` text NOT NULL,
	`posted_on` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`status` text NOT NULL,
	`appointment_id` text,
	`review_state` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `escalations` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text,
	`reason` text NOT NULL,
	`agent` text NOT NULL,
	`summary` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `fee_reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`charge_id` text NOT NULL,
	`reason` text NOT NULL,
	`status` text NOT NULL,
	`decide_by` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `guardians` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`guardian_name` text NOT NULL,
	`relationship` text NOT NULL
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
CREATE TABLE `locations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`state` text NOT NULL,
	`address` text NOT NULL,
	`floor` text NOT NULL,
	`phone` text NOT NULL,
	`weekday_hours` text NOT NULL,
	`saturday_hours` text,
	`parking` text NOT NULL,
	`transit` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `medications` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`generic` text NOT NULL,
	`display_name` text NOT NULL,
	`prescriber_id` text NOT NULL,
	`active` integer NOT NULL,
	`last_reviewed_on` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `openings` (
	`id` text PRIMARY KEY NOT NULL,
	`provider_id` text NOT NULL,
	`location_id` text NOT NULL,
	`starts_at` text NOT NULL,
	`duration_min` integer NOT NULL,
	`status` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `patients` (
	`id` text PRIMARY KEY NOT NULL,
	`full_name` text NOT NULL,
	`date_of_birth` text NOT NULL,
	`zip_code` text,
	`mobile_phone` text,
	`email` text,
	`home_location_id` text,
	`carrier` text,
	`member_id` text,
	`portal_status` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payment_links` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`purpose` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`sent_to` text NOT NULL,
	`expires_at` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payment_plans` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`balance_cents` integer NOT NULL,
	`months` integer NOT NULL,
	`monthly_cents` integer NOT NULL,
	`first_payment_on` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `plan_benefits` (
	`carrier` text NOT NULL,
	`visit_type` text NOT NULL,
	`covered` integer NOT NULL,
	`copay_cents` integer NOT NULL,
	PRIMARY KEY(`carrier`, `visit_type`)
);
--> statement-breakpoint
CREATE TABLE `plan_contracts` (
	`carrier` text NOT NULL,
	`location_id` text NOT NULL,
	`status` text NOT NULL,
	PRIMARY KEY(`carrier`, `location_id`)
);
--> statement-breakpoint
CREATE TABLE `portal_invites` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`email` text NOT NULL,
	`expires_on` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `providers` (
	`id` text PRIMARY KEY NOT NULL,
	`display_name` text NOT NULL,
	`title` text NOT NULL,
	`location_id` text NOT NULL,
	`does_mohs` integer NOT NULL,
	`does_pediatric` integer NOT NULL,
	`does_patch_testing` integer NOT NULL,
	`does_cosmetic` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `refill_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`medication_id` text NOT NULL,
	`prescriber_id` text NOT NULL,
	`status` text NOT NULL,
	`decide_by` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `results` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`kind` text NOT NULL,
	`collected_on` text NOT NULL,
	`status` text NOT NULL,
	`resulted_on` text,
	`provider_id` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `texts` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`appointment_id` text NOT NULL,
	`to_phone` text NOT NULL,
	`kind` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `visit_types` (
	`id` text PRIMARY KEY NOT NULL,
	`display_name` text NOT NULL,
	`duration_min` integer NOT NULL,
	`requires` text NOT NULL,
	`requires_md` integer NOT NULL,
	`min_age_years` integer,
	`max_age_years` integer
);
--> statement-breakpoint
CREATE TABLE `waitlist_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`visit_type` text NOT NULL,
	`earliest_date` text NOT NULL,
	`latest_date` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `waitlist_offices` (
	`entry_id` text NOT NULL,
	`location_id` text NOT NULL,
	PRIMARY KEY(`entry_id`, `location_id`)
);
