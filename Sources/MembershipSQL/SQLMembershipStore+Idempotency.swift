public import Membership

/// Idempotency keys: claiming one for a request, deciding how to answer a repeat, giving one up.
extension SQLMembershipStore {
    /// Records `key` as in flight, unless it is already recorded.
    static func claim(_ key: IdempotencyKey, now: Int64) -> SQLStatement {
        SQLStatement(
            "INSERT INTO idempotency_keys (scope, key, request_hash, state, created_at) VALUES (?, ?, ?, 'in_flight', ?) ON CONFLICT (scope, key) DO NOTHING",
            [.text(key.scope), .text(key.key), .text(key.requestHash), .int(now)]
        )
    }

    public func idempotentRequest(_ key: IdempotencyKey, now: Int64, abandonAfter: Int64) async throws -> IdempotencyDecision {
        do {
            return try await beginIdempotentRequestOnce(key, now: now, abandonAfter: abandonAfter)
        } catch let error as SQLError where error.code == .uniqueViolation {
            // The record went (abandoned) and two attempts raced to record it again (a row that does not exist
            // yet cannot be locked): the other one won and is in flight.
            return .inFlight
        }
    }

    private func beginIdempotentRequestOnce(_ key: IdempotencyKey, now: Int64, abandonAfter: Int64) async throws -> IdempotencyDecision {
        try await decide(key, now: now, abandonAfter: abandonAfter, takingOverAs: "in_flight", .proceed) { db in
            try await db.execute(
                "INSERT INTO idempotency_keys (scope, key, request_hash, state, created_at) VALUES (?, ?, ?, 'in_flight', ?)",
                [.text(key.scope), .text(key.key), .text(key.requestHash), .int(now)]
            )
            return .proceed
        }
    }

    /// The most keys closed by refusals under one scope (a credential): past it, a refusal closes none.
    static let closedKeysPerScope = 100

    public func closeIdempotencyKey(_ key: IdempotencyKey, now: Int64, abandonAfter: Int64) async throws -> IdempotencyDecision {
        // A claim whose process died carried nothing out: closed.
        try await decide(key, now: now, abandonAfter: abandonAfter, takingOverAs: "refused", .refused) { db in
            // At most `closedKeysPerScope` a credential, so a withdrawn one cannot fill the table; a claim made
            // meanwhile wins (PostgreSQL waits for it here): that copy is in flight.
            let closed = try await db.query(
                """
                INSERT INTO idempotency_keys (scope, key, request_hash, state, created_at) SELECT ?, ?, ?, 'refused', ?
                WHERE (SELECT COUNT(*) FROM idempotency_keys WHERE scope = ? AND state = 'refused') < ?
                ON CONFLICT (scope, key) DO NOTHING RETURNING scope
                """,
                [.text(key.scope), .text(key.key), .text(key.requestHash), .int(now), .text(key.scope), .int(Int64(Self.closedKeysPerScope))]
            )
            if !closed.isEmpty { return .refused }
            let claimed = try await db.query(
                "SELECT 1 AS claimed FROM idempotency_keys WHERE scope = ? AND key = ?",
                [.text(key.scope), .text(key.key)]
            )
            return claimed.isEmpty ? .refused : .inFlight
        }
    }

    /// Reads `key`'s record, locked, in one write transaction, and decides: another request's (`mismatch`), done
    /// (`replay`), closed (`refused`), in flight (`inFlight`); a claim older than `abandonAfter` seconds (its
    /// process died) is taken over, its state set to `state`, as `decision`; `absent` decides when there is none.
    private func decide(
        _ key: IdempotencyKey,
        now: Int64,
        abandonAfter: Int64,
        takingOverAs state: String,
        _ decision: IdempotencyDecision,
        absent: @escaping @Sendable (any SQLExecutor) async throws -> IdempotencyDecision
    ) async throws -> IdempotencyDecision {
        try await database.write { db in
            let rows = try await db.query(
                "SELECT request_hash, state, response_body, created_at FROM idempotency_keys WHERE scope = ? AND key = ?\(lock)",
                [.text(key.scope), .text(key.key)]
            )
            guard let row = rows.first else { return try await absent(db) }
            guard try row.text("request_hash") == key.requestHash else { return .mismatch }
            switch try row.text("state") {
            case "done": return .replay(StoredResponse(try row.blob("response_body")))
            case "refused": return .refused
            default: break
            }
            guard now - (try row.int("created_at")) > abandonAfter else { return .inFlight }
            try await db.execute(
                "UPDATE idempotency_keys SET state = ?, created_at = ? WHERE scope = ? AND key = ?",
                [.text(state), .int(now), .text(key.scope), .text(key.key)]
            )
            return decision
        }
    }

    public func releaseIdempotencyKey(_ key: IdempotencyKey) async throws {
        _ = try await database.writeStatement(
            "DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND state = 'in_flight'",
            [.text(key.scope), .text(key.key)]
        )
    }

    /// Stores the response to replay for `key`, in the same batch as the work it answers, and makes that batch
    /// fail unless the key is still in flight for this request: a key is completed once.
    ///
    /// It records the key itself if the claim is gone: a claim is not written durably, so a database crash and
    /// a quick restart between claim and sale can lose it, and the sale must still leave the record that
    /// makes a retry replay instead of selling again. With the claim lost, a second copy of the request (the
    /// network's, or the client's retry) can claim the key again and sell beside the first; so can one that
    /// takes over a claim as abandoned while its sale is only slow. The one that commits second finds the key
    /// done: its state is set to NULL, which the column refuses, and its whole batch with it, so no second
    /// sale is written (``isIdempotencyKeyTaken(_:)``). The same for a key a refusal closed, or claimed by
    /// another request (another hash).
    static func completeIdempotentRequest(_ key: IdempotencyKey, with response: StoredResponse, now: Int64) -> SQLStatement {
        SQLStatement(
            """
            INSERT INTO idempotency_keys (scope, key, request_hash, state, response_body, created_at)
            VALUES (?, ?, ?, 'done', ?, ?)
            ON CONFLICT (scope, key) DO UPDATE SET response_body = excluded.response_body, state = CASE
            WHEN idempotency_keys.state = 'in_flight' AND idempotency_keys.request_hash = excluded.request_hash THEN 'done' END
            """,
            [.text(key.scope), .text(key.key), .text(key.requestHash), .blob(response.bytes), .int(now)]
        )
    }

    /// Whether `error` is ``completeIdempotentRequest(_:with:now:)`` refusing a key completed, closed or claimed
    /// by another request: nothing of the batch was written.
    static func isIdempotencyKeyTaken(_ error: SQLError) -> Bool {
        error.code == .notNullViolation && error.subject.contains("idempotency_keys")
    }
}
