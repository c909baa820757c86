-- listmonk's enum type names, so that segmentation expressions written for listmonk work unchanged:
-- its users write `subscribers.status = 'enabled'::subscriber_status` (issue 14 finding 9b: these casts
-- passed the guard and failed with a 500 because the types did not exist). Mailroom's columns stay
-- text with CHECK constraints (0001_init.sql); these are domains over text with the same values, so a
-- cast value compares with the columns as text (indexes still apply) and a value outside the set is
-- refused as listmonk's enum would refuse it. Keep each list in step with its column's CHECK.
-- Only the types of columns the segmentation guard lets expressions read (src/segmentation/allow-list.ts).
CREATE DOMAIN subscriber_status AS text CHECK (VALUE IN ('enabled', 'disabled', 'blocklisted'));
CREATE DOMAIN subscription_status AS text CHECK (VALUE IN ('unconfirmed', 'confirmed', 'unsubscribed'));
CREATE DOMAIN list_type AS text CHECK (VALUE IN ('public', 'private', 'temporary'));
CREATE DOMAIN list_optin AS text CHECK (VALUE IN ('single', 'double'));
CREATE DOMAIN list_status AS text CHECK (VALUE IN ('active', 'archived'));
CREATE DOMAIN bounce_type AS text CHECK (VALUE IN ('soft', 'hard', 'complaint'));
