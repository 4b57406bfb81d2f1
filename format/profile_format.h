/*
 * profile_format.h - what identifies a profile database: the
 * application_id every one carries ("PVMP") and the schema version
 * (PRAGMA user_version) of format/schema.sql, for the collector that writes
 * it and the readers.
 */
#ifndef PVMP_PROFILE_FORMAT_H
#define PVMP_PROFILE_FORMAT_H

#define PVMP_APPLICATION_ID 0x50564D50
#define PVMP_SCHEMA_VERSION 10

#endif
