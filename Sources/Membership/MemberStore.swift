public import Foundation

/// Members: who holds a card.
public protocol MemberStore: Sendable {
    /// Creates `draft` (already validated) with the next membership id of its Algiers day. Creating the same
    /// uuid again with the same fields returns the existing member with `created == false`; other fields, or a
    /// phone or email already taken, are a `conflict`.
    func createMember(_ draft: MemberDraft, now: Int64) async throws -> (member: Member, created: Bool)
    func member(uuid: UUID) async throws -> Member?
    func member(membershipID: String) async throws -> Member?
    /// Applies `patch`; a phone or email already taken by another member is a `conflict`. A new name makes the
    /// stored card stale (the name is printed on it), so the next read issues a fresh one. `audit` (an operator's
    /// change) is written in the same transaction.
    func updateMember(uuid: UUID, patch: MemberPatch, now: Int64, audit: AuditEntry?) async throws -> Member
}
