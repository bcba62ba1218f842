/**
 * Schema migrations, shared by SQLite and PostgreSQL. Run at every start; each runs once.
 * Timestamps are epoch milliseconds in BIGINT columns; booleans are 0/1 integers; JSON is text.
 */
import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';

type Dialect = 'sqlite' | 'postgres';

function migrations(dialect: Dialect): Record<string, Migration> {
  const blob = dialect === 'postgres' ? 'bytea' : 'blob';
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  return {
    '0001_initial': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('meta')
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('value', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('api_keys')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('hash', 'text', (c) => c.notNull().unique())
          .addColumn('endpoint', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('endpoints')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('settings', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('rules')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('endpoint', 'text', (c) => c.notNull())
          .addColumn('position', 'integer', (c) => c.notNull())
          .addColumn('data', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('rules_endpoint_position')
          .on('rules')
          .columns(['endpoint', 'position'])
          .execute();
        await db.schema
          .createTable('requests')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('endpoint', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('method', 'text', (c) => c.notNull())
          .addColumn('path', 'text', (c) => c.notNull())
          .addColumn('ip', 'text', (c) => c.notNull())
          .addColumn('status', 'integer', (c) => c.notNull())
          .addColumn('behavior', 'text', (c) => c.notNull())
          .addColumn('rule_matched', 'integer', (c) => c.notNull())
          .addColumn('rule_id', 'text')
          .addColumn('duration_ms', 'double precision', (c) => c.notNull())
          .addColumn('request_headers', 'text', (c) => c.notNull())
          .addColumn('request_body', 'text', (c) => c.notNull())
          .addColumn('request_body_truncated', 'integer', (c) => c.notNull())
          .addColumn('response_headers', 'text', (c) => c.notNull())
          .addColumn('response_body', 'text', (c) => c.notNull())
          .addColumn('response_body_truncated', 'integer', (c) => c.notNull())
          .addColumn('files', 'text', (c) => c.notNull())
          .addColumn('problems', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('requests_endpoint_created')
          .on('requests')
          .columns(['endpoint', 'created_at', 'id'])
          .execute();
        await db.schema
          .createTable('request_files')
          .addColumn('seq', serial, (c) =>
            dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
          )
          .addColumn('request_id', 'text', (c) => c.notNull())
          .addColumn('endpoint', 'text', (c) => c.notNull())
          .addColumn('field_name', 'text', (c) => c.notNull())
          .addColumn('file_name', 'text', (c) => c.notNull())
          .addColumn('content_type', 'text', (c) => c.notNull())
          .addColumn('size', 'integer', (c) => c.notNull())
          .addColumn('data', sql.raw(blob), (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('request_files_request')
          .on('request_files')
          .column('request_id')
          .execute();
        await db.schema
          .createTable('state')
          .addColumn('endpoint', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('value', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('state_pk', ['endpoint', 'type', 'key'])
          .execute();
        await db.schema
          .createTable('totp_secrets')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('issuer', 'text')
          .addColumn('algorithm', 'text', (c) => c.notNull())
          .addColumn('digits', 'integer', (c) => c.notNull())
          .addColumn('period', 'integer', (c) => c.notNull())
          .addColumn('secret_enc', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('last_used_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('totp_last_used').on('totp_secrets').column('last_used_at').execute();
      },
    },
    // History filtered by status (the dashboard's "show me the 500s", and deletes by status): without
    // it a rare status makes a list page scan the endpoint's whole history (bench/history.ts).
    '0002_history_status_index': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createIndex('requests_endpoint_status_created')
          .on('requests')
          .columns(['endpoint', 'status', 'created_at', 'id'])
          .execute();
      },
    },
    // A filtered delete hides entries here at once; a background purge deletes them (history-table.ts).
    '0003_history_hidden': {
      async up(db: Kysely<unknown>) {
        let table = db.schema
          .createTable('history_hidden')
          .addColumn('endpoint', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('id', 'text', (c) => c.notNull())
          // In time order, as the entries lie in `requests`: the purge deletes neighbours together.
          .addPrimaryKeyConstraint('history_hidden_pk', ['endpoint', 'created_at', 'id']);
        if (dialect === 'sqlite') table = table.modifyEnd(sql`without rowid`);
        await table.execute();
      },
    },
    // Response bodies uploaded with POST …/blobs, answered by mock actions that name them (issue 10).
    '0005_blobs': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('blobs')
          .addColumn('endpoint', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('content_type', 'text', (c) => c.notNull())
          .addColumn('size', 'integer', (c) => c.notNull())
          .addColumn('data', sql.raw(blob), (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('blobs_pk', ['endpoint', 'name'])
          .execute();
      },
    },
    // The response a weighted rule action chose, recorded with the request (issue 10).
    '0004_history_response_name': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('requests').addColumn('response_name', 'text').execute();
      },
    },
    // What each entry weighs (bodies, headers, files), so that an endpoint's history is bounded in
    // bytes as entries arrive (history-cap.ts). The time-order index carries it: counting and summing
    // an endpoint's history reads the index alone, never the rows with their bodies. Entries written
    // before this migration weigh 0 (measuring them would read every body of the table at start).
    '0006_history_size': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .alterTable('requests')
          .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema
          .createIndex('requests_endpoint_created_size')
          .on('requests')
          .columns(['endpoint', 'created_at', 'id', 'size'])
          .execute();
        await db.schema.dropIndex('requests_endpoint_created').execute();
      },
    },
    // A rule callout's request and response, kept with the entry of the request that made it; an
    // async callout's outcome updates it later (issue 13, the callout action).
    '0007_history_callout': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('requests').addColumn('callout', 'text').execute();
      },
    },
    // OpenAPI mocking (issue 12): one uploaded document per endpoint, and the jobs that process uploads.
    '0007_oas_specs': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('oas_specs')
          .addColumn('endpoint', 'text', (c) => c.primaryKey())
          .addColumn('job_id', 'text', (c) => c.notNull())
          .addColumn('intelligence_mock', 'integer', (c) => c.notNull())
          .addColumn('title', 'text', (c) => c.notNull())
          .addColumn('version', 'text', (c) => c.notNull())
          .addColumn('spec_version', 'text', (c) => c.notNull())
          .addColumn('operations', 'text', (c) => c.notNull())
          .addColumn('document', 'text', (c) => c.notNull())
          .addColumn('size', 'integer', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('oas_jobs')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('endpoint', 'text', (c) => c.notNull())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('message', 'text', (c) => c.notNull())
          .addColumn('progress', 'integer', (c) => c.notNull())
          .addColumn('result', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('completed_at', 'bigint')
          .addColumn('failed_at', 'bigint')
          .execute();
        await db.schema
          .createIndex('oas_jobs_endpoint_created')
          .on('oas_jobs')
          .columns(['endpoint', 'created_at'])
          .execute();
      },
    },
    // CRUD collections of `crud` rule actions (issue 13 part 3). `seq` gives the newest-first order
    // (two items created in one millisecond keep theirs); (endpoint, created_at, size) serves the
    // endpoint's caps (count and bytes from the index alone) and `crud.autoDelete`.
    '0007_crud_items': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('crud_items')
          .addColumn('seq', serial, (c) =>
            dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
          )
          .addColumn('endpoint', 'text', (c) => c.notNull())
          .addColumn('collection', 'text', (c) => c.notNull())
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addColumn('size', 'integer', (c) => c.notNull())
          .addColumn('data', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('crud_items_key')
          .unique()
          .on('crud_items')
          .columns(['endpoint', 'collection', 'id'])
          .execute();
        await db.schema
          .createIndex('crud_items_order')
          .on('crud_items')
          .columns(['endpoint', 'collection', 'seq'])
          .execute();
        await db.schema
          .createIndex('crud_items_age')
          .on('crud_items')
          .columns(['endpoint', 'created_at', 'size'])
          .execute();
      },
    },
    // The hosted service's entry fields: the request's HTTP version, and whether it was multipart
    // (a filter of the list). Older entries read as HTTP/1.1; `is_multipart` is filled in from their
    // stored Content-Type (header names are stored lower-case, values as sent).
    '0008_history_hosted': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('requests').addColumn('http_version', 'text').execute();
        await db.schema
          .alterTable('requests')
          .addColumn('is_multipart', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await sql`UPDATE requests SET is_multipart = 1
          WHERE files <> '[]' OR lower(request_headers) LIKE '%"content-type":"multipart/%'`.execute(db);
      },
    },
    // TLS client certificates (issue 14): each endpoint's own CA, made on first use, and the client
    // certificates it issued. A revoked certificate's row is deleted: the request check accepts only
    // certificates that still have one.
    '0009_mtls': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('mtls_cas')
          .addColumn('endpoint', 'text', (c) => c.primaryKey())
          .addColumn('cert_pem', 'text', (c) => c.notNull())
          .addColumn('key_enc', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('mtls_certs')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('endpoint', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('serial', 'text', (c) => c.notNull())
          .addColumn('fingerprint', 'text', (c) => c.notNull())
          .addColumn('cert_pem', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('mtls_certs_endpoint_created')
          .on('mtls_certs')
          .columns(['endpoint', 'created_at', 'id'])
          .execute();
      },
    },
    // Freshness across instances (SPEC §8): every change of an endpoint moves its config_version in
    // the change's transaction, to the next value of one counter shared by all endpoints, so that an
    // endpoint deleted and made again never reuses a version an instance may still hold. PostgreSQL
    // keeps the counter in a sequence; SQLite, one writer, in `meta`. `domains_version` moves with
    // every change of the custom domains claimed.
    '0010_config_versions': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .alterTable('endpoints')
          .addColumn('config_version', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        if (dialect === 'postgres') await sql`CREATE SEQUENCE endpoint_config_versions`.execute(db);
        else await sql`INSERT INTO meta (key, value) VALUES ('config_version_counter', '0')`.execute(db);
        await sql`INSERT INTO meta (key, value) VALUES ('domains_version', '0')`.execute(db);
      },
    },
    // gRPC descriptors (SPEC §13) share the one document an endpoint has: `type` says which kind a
    // row holds (rows before this are OpenAPI); for a gRPC one `document` is the descriptor set in
    // base64, `operations` its methods and `files` the .proto files it was compiled from.
    '0011_grpc_specs': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .alterTable('oas_specs')
          .addColumn('type', 'text', (c) => c.notNull().defaultTo('openapi'))
          .execute();
        await db.schema
          .alterTable('oas_specs')
          .addColumn('files', 'text', (c) => c.notNull().defaultTo('[]'))
          .execute();
      },
    },
    // gRPC calls in the history (SPEC §13): the method and how the call ended, JSON (GrpcRecord); null
    // for every other entry. The messages are the bodies (history/grpc-entry.ts), in their columns.
    '0012_history_grpc': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('requests').addColumn('grpc', 'text').execute();
      },
    },
    // Contract checking (SPEC §7): the request's and the answer's violations of the endpoint's OpenAPI
    // document, JSON lists (`[]`: checked, none); null when nothing was checked and for older rows.
    // `?validation=failed` compares them with `[]` (history-table.ts); no index: the filter always
    // comes with the endpoint's own, and a list page walks that one.
    '0013_history_validation': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('requests').addColumn('validation', 'text').execute();
        await db.schema.alterTable('requests').addColumn('response_validation', 'text').execute();
      },
    },
  };
}

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return { getMigrations: async () => migrations(dialect) };
}
