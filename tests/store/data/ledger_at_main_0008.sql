-- A ledger written by main at abb5381 (schema revision 0008, the single chain in alembic_version):
-- two filings through the public API, then one row in every table still empty (values by
-- column type, not a consistent record). tests/store/test_store_migrations.py opens it.
BEGIN TRANSACTION;
CREATE TABLE alembic_version (
	version_num VARCHAR(32) NOT NULL, 
	CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
INSERT INTO "alembic_version" VALUES('0008');
CREATE TABLE approvals (
	id VARCHAR(36) NOT NULL, 
	filing_id VARCHAR(36) NOT NULL, 
	terms_sha256 VARCHAR(64) NOT NULL, 
	created_at VARCHAR(27) NOT NULL, 
	expires_at VARCHAR(27) NOT NULL, 
	state VARCHAR(16) NOT NULL, 
	decided_at VARCHAR(27), 
	decided_by VARCHAR(200), 
	PRIMARY KEY (id), 
	FOREIGN KEY(filing_id) REFERENCES filings (id)
);
INSERT INTO "approvals" VALUES('id','b4fa4659-3455-498b-8006-04a0701b68af','terms_sh','2026-11-30T15:00:00.000000Z','2026-11-30T15:00:00.000000Z','state','2026-11-30T15:00:00.000000Z','decided_');
CREATE TABLE chain_heads (
	account VARCHAR(200) NOT NULL, 
	seq BIGINT NOT NULL, 
	account_seq BIGINT NOT NULL, 
	hash VARCHAR(64) NOT NULL, 
	PRIMARY KEY (account)
);
INSERT INTO "chain_heads" VALUES('a',1,1,'febb03bfe0728302219725ce5835659fc0e20a0de388ca54513dc50b0291c3b7');
INSERT INTO "chain_heads" VALUES('b',2,1,'1f75894576fe38a73a1fae490264d34b1fe11cbc48e0c8620139d3162db12a27');
CREATE TABLE connections (
	id VARCHAR(64) NOT NULL, 
	client_id VARCHAR(64) NOT NULL, 
	kind VARCHAR(16) NOT NULL, 
	profile VARCHAR(64) NOT NULL, 
	state VARCHAR(16) NOT NULL, 
	upstream_sealed TEXT, 
	upstream_expires_at VARCHAR(27), 
	created_at VARCHAR(27) NOT NULL, 
	last_used_at VARCHAR(27) NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO "connections" VALUES('id','client_i','kind','profile','state','upstream','2026-11-30T15:00:00.000000Z','2026-11-30T15:00:00.000000Z','2026-11-30T15:00:00.000000Z');
CREATE TABLE controls (
	"key" VARCHAR(100) NOT NULL, 
	value TEXT NOT NULL, 
	updated_at VARCHAR(27) NOT NULL, 
	PRIMARY KEY ("key")
);
INSERT INTO "controls" VALUES('high_water_mark','"1000"','2026-11-30T15:00:00.000000Z');
CREATE TABLE decisions (
	seq INTEGER NOT NULL, 
	created_at VARCHAR(27) NOT NULL, 
	identity VARCHAR(200) NOT NULL, 
	filing_id VARCHAR(36), 
	kind VARCHAR(64) NOT NULL, 
	why TEXT NOT NULL, 
	detail TEXT NOT NULL, 
	PRIMARY KEY (seq)
);
INSERT INTO "decisions" VALUES(1,'2026-11-30T15:00:00.000000Z','identity','filing_i','kind','why','detail');
CREATE TABLE executions (
	id VARCHAR(100) NOT NULL, 
	ref_id VARCHAR(36) NOT NULL, 
	broker_order_id VARCHAR(100) NOT NULL, 
	quantity VARCHAR(64) NOT NULL, 
	price VARCHAR(64) NOT NULL, 
	executed_at VARCHAR(27) NOT NULL, 
	basis_source VARCHAR(16) NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(ref_id) REFERENCES filings (id)
);
INSERT INTO "executions" VALUES('id','b4fa4659-3455-498b-8006-04a0701b68af','broker_o','quantity','price','2026-11-30T15:00:00.000000Z','basis_so');
CREATE TABLE filing_events (
	seq BIGINT NOT NULL, 
	filing_id VARCHAR(36) NOT NULL, 
	created_at VARCHAR(27) NOT NULL, 
	kind VARCHAR(16) NOT NULL, 
	status VARCHAR(32) NOT NULL, 
	detail TEXT NOT NULL, 
	prev_hash VARCHAR(64) NOT NULL, 
	hash VARCHAR(64) NOT NULL, 
	PRIMARY KEY (seq), 
	FOREIGN KEY(filing_id) REFERENCES filings (id)
);
INSERT INTO "filing_events" VALUES(1,'b4fa4659-3455-498b-8006-04a0701b68af','2026-11-30T15:00:00.000000Z','kind','status','detail','prev_has','hash');
CREATE TABLE filings (
	seq BIGINT NOT NULL, 
	id VARCHAR(36) NOT NULL, 
	identity VARCHAR(200) NOT NULL, 
	account VARCHAR(200) NOT NULL, 
	created_at VARCHAR(27) NOT NULL, 
	kind VARCHAR(64) NOT NULL, 
	status VARCHAR(32) NOT NULL, 
	decision VARCHAR(16) NOT NULL, 
	reasons TEXT NOT NULL, 
	terms TEXT NOT NULL, 
	notional VARCHAR(64) NOT NULL, 
	prev_hash VARCHAR(64) NOT NULL, 
	hash VARCHAR(64) NOT NULL, account_seq BIGINT, 
	PRIMARY KEY (seq), 
	UNIQUE (id)
);
INSERT INTO "filings" VALUES(1,'b4fa4659-3455-498b-8006-04a0701b68af','agent','a','2026-11-30T15:00:00.000000Z','equity_order','accepted','accept','[]','{"symbol":"AAPL"}','12.5','0000000000000000000000000000000000000000000000000000000000000000','febb03bfe0728302219725ce5835659fc0e20a0de388ca54513dc50b0291c3b7',1);
INSERT INTO "filings" VALUES(2,'3517c42b-116b-4d72-b8e9-4cd4f8748e1a','agent','b','2026-11-30T15:00:00.000000Z','equity_order','accepted','accept','[]','{"symbol":"MSFT"}','3','0000000000000000000000000000000000000000000000000000000000000000','1f75894576fe38a73a1fae490264d34b1fe11cbc48e0c8620139d3162db12a27',1);
CREATE TABLE gateway_clients (
	client_id VARCHAR(64) NOT NULL, 
	client_name VARCHAR(200) NOT NULL, 
	redirect_uris TEXT NOT NULL, 
	created_at VARCHAR(27) NOT NULL, 
	PRIMARY KEY (client_id)
);
INSERT INTO "gateway_clients" VALUES('client_i','client_n','redirect','2026-11-30T15:00:00.000000Z');
CREATE TABLE gateway_codes (
	code_sha256 VARCHAR(64) NOT NULL, 
	client_id VARCHAR(64) NOT NULL, 
	redirect_uri TEXT NOT NULL, 
	code_challenge VARCHAR(128) NOT NULL, 
	connection_id VARCHAR(64) NOT NULL, 
	resource TEXT, 
	expires_at VARCHAR(27) NOT NULL, 
	used_at VARCHAR(27), 
	PRIMARY KEY (code_sha256)
);
INSERT INTO "gateway_codes" VALUES('code_sha','client_i','redirect','code_cha','connecti','resource','2026-11-30T15:00:00.000000Z','2026-11-30T15:00:00.000000Z');
CREATE TABLE gateway_pending (
	id VARCHAR(64) NOT NULL, 
	client_id VARCHAR(64) NOT NULL, 
	redirect_uri TEXT NOT NULL, 
	state TEXT, 
	code_challenge VARCHAR(128) NOT NULL, 
	resource TEXT, 
	nonce_sha256 VARCHAR(64) NOT NULL, 
	nonce_used BOOLEAN NOT NULL, 
	bind_sha256 VARCHAR(64), 
	upstream_state_sha256 VARCHAR(64), 
	upstream_verifier_sealed TEXT, 
	created_at VARCHAR(27) NOT NULL, 
	expires_at VARCHAR(27) NOT NULL, profile VARCHAR(64), 
	PRIMARY KEY (id)
);
INSERT INTO "gateway_pending" VALUES('id','client_i','redirect','state','code_cha','resource','nonce_sh',0,'bind_sha','upstream','upstream','2026-11-30T15:00:00.000000Z','2026-11-30T15:00:00.000000Z','profile');
CREATE TABLE gateway_tokens (
	token_sha256 VARCHAR(64) NOT NULL, 
	kind VARCHAR(8) NOT NULL, 
	client_id VARCHAR(64) NOT NULL, 
	connection_id VARCHAR(64) NOT NULL, 
	expires_at VARCHAR(27) NOT NULL, 
	revoked_at VARCHAR(27), 
	rotated_to_sha256 VARCHAR(64), 
	PRIMARY KEY (token_sha256)
);
INSERT INTO "gateway_tokens" VALUES('token_sh','kind','client_i','connecti','2026-11-30T15:00:00.000000Z','2026-11-30T15:00:00.000000Z','rotated_');
CREATE TABLE locks (
	name VARCHAR(32) NOT NULL, 
	PRIMARY KEY (name)
);
INSERT INTO "locks" VALUES('filings');
INSERT INTO "locks" VALUES('events');
CREATE TABLE open_filings (
	filing_id VARCHAR(36) NOT NULL, 
	seq BIGINT NOT NULL, 
	account VARCHAR(200) NOT NULL, 
	identity VARCHAR(200) NOT NULL, 
	status VARCHAR(32) NOT NULL, 
	PRIMARY KEY (filing_id)
);
INSERT INTO "open_filings" VALUES('b4fa4659-3455-498b-8006-04a0701b68af',1,'a','agent','accepted');
INSERT INTO "open_filings" VALUES('3517c42b-116b-4d72-b8e9-4cd4f8748e1a',2,'b','agent','accepted');
CREATE TABLE orders (
	ref_id VARCHAR(36) NOT NULL, 
	broker_order_id VARCHAR(100), 
	state VARCHAR(40) NOT NULL, 
	cumulative_quantity VARCHAR(64) NOT NULL, 
	average_price VARCHAR(64), 
	updated_at VARCHAR(27) NOT NULL, 
	PRIMARY KEY (ref_id), 
	FOREIGN KEY(ref_id) REFERENCES filings (id), 
	UNIQUE (broker_order_id)
);
INSERT INTO "orders" VALUES('b4fa4659-3455-498b-8006-04a0701b68af','broker_o','state','cumulati','average_','2026-11-30T15:00:00.000000Z');
CREATE TABLE owner_guard (
	"key" VARCHAR(16) NOT NULL, 
	last_step BIGINT, 
	failures TEXT NOT NULL, 
	locked_until VARCHAR(40), 
	updated_at VARCHAR(40) NOT NULL, 
	PRIMARY KEY ("key")
);
INSERT INTO "owner_guard" VALUES('owner',NULL,'[]',NULL,'1970-01-01T00:00:00+00:00');
CREATE TABLE paper_fills (
	id VARCHAR(64) NOT NULL, 
	order_id VARCHAR(64) NOT NULL, 
	account VARCHAR(200) NOT NULL, 
	symbol VARCHAR(32) NOT NULL, 
	side VARCHAR(8) NOT NULL, 
	quantity VARCHAR(64) NOT NULL, 
	price VARCHAR(64) NOT NULL, 
	executed_at VARCHAR(27) NOT NULL, 
	PRIMARY KEY (id), 
	FOREIGN KEY(order_id) REFERENCES paper_orders (order_id)
);
INSERT INTO "paper_fills" VALUES('id','paper-1','account','symbol','side','quantity','price','2026-11-30T15:00:00.000000Z');
CREATE TABLE paper_orders (
	order_id VARCHAR(64) NOT NULL, 
	ref_id VARCHAR(36) NOT NULL, 
	account VARCHAR(200) NOT NULL, 
	symbol VARCHAR(32) NOT NULL, 
	side VARCHAR(8) NOT NULL, 
	type VARCHAR(16) NOT NULL, 
	quantity VARCHAR(64), 
	dollar_amount VARCHAR(64), 
	limit_price VARCHAR(64), 
	stop_price VARCHAR(64), 
	time_in_force VARCHAR(16) NOT NULL, 
	market_hours VARCHAR(32) NOT NULL, 
	state VARCHAR(40) NOT NULL, 
	triggered BOOLEAN NOT NULL, 
	reject_reason VARCHAR(200), 
	created_at VARCHAR(27) NOT NULL, 
	updated_at VARCHAR(27) NOT NULL, 
	PRIMARY KEY (order_id), 
	UNIQUE (ref_id)
);
INSERT INTO "paper_orders" VALUES('paper-1','ref_id','account','symbol','side','type','quantity','dollar_a','limit_pr','stop_pri','time_in_','market_h','state',0,'reject_r','2026-11-30T15:00:00.000000Z','2026-11-30T15:00:00.000000Z');
CREATE TABLE paper_positions (
	account VARCHAR(200) NOT NULL, 
	symbol VARCHAR(32) NOT NULL, 
	quantity VARCHAR(64) NOT NULL, 
	cost VARCHAR(64) NOT NULL, 
	PRIMARY KEY (account, symbol)
);
INSERT INTO "paper_positions" VALUES('account','symbol','quantity','cost');
CREATE TABLE reservations (
	filing_id VARCHAR(36) NOT NULL, 
	account VARCHAR(200) NOT NULL, 
	created_us BIGINT NOT NULL, 
	reserved_units BIGINT NOT NULL, 
	amount_units BIGINT NOT NULL, 
	ops INTEGER NOT NULL, 
	state VARCHAR(16) NOT NULL, 
	PRIMARY KEY (filing_id), 
	FOREIGN KEY(filing_id) REFERENCES filings (id)
);
INSERT INTO "reservations" VALUES('b4fa4659-3455-498b-8006-04a0701b68af','a',1796050800000000,1250000000,1250000000,1,'reserved');
INSERT INTO "reservations" VALUES('3517c42b-116b-4d72-b8e9-4cd4f8748e1a','b',1796050800000000,300000000,300000000,1,'reserved');
CREATE INDEX ix_filing_events_filing ON filing_events (filing_id, seq);
CREATE INDEX ix_reservations_window ON reservations (account, created_us);
CREATE INDEX ix_executions_ref_id ON executions (ref_id);
CREATE INDEX ix_approvals_filing_id ON approvals (filing_id);
CREATE INDEX ix_paper_orders_account_state ON paper_orders (account, state);
CREATE INDEX ix_paper_fills_order ON paper_fills (order_id);
CREATE INDEX ix_paper_fills_account ON paper_fills (account, symbol);
CREATE INDEX ix_connections_client_id ON connections (client_id);
CREATE INDEX ix_gateway_tokens_connection_id ON gateway_tokens (connection_id);
CREATE INDEX ix_open_filings_account ON open_filings (account, seq);
CREATE INDEX ix_open_filings_identity ON open_filings (identity, account);
CREATE INDEX ix_filings_identity ON filings (identity, seq);
CREATE INDEX ix_filings_account ON filings (account, seq);
CREATE INDEX ix_approvals_state ON approvals (state, expires_at);
COMMIT;
