public import Foundation

/// A partner shop.
public struct Vendor: Sendable, Hashable, Codable {
    public var id: UUID
    public var name: String
    /// One of ``Oran/categories``.
    public var category: String
    /// One of ``Oran/neighbourhoods``.
    public var neighbourhood: String
    public var createdAt: Int64

    public init(id: UUID, name: String, category: String, neighbourhood: String, createdAt: Int64) {
        self.id = id
        self.name = name
        self.category = category
        self.neighbourhood = neighbourhood
        self.createdAt = createdAt
    }

    /// Checks a new vendor's fields, naming each problem.
    public static func validate(name: String, category: String, neighbourhood: String) throws(MembershipError) {
        var problems: [String: String] = [:]
        if let problem = TextRules.nameProblem(name) { problems["name"] = problem }
        if !Oran.categoryIDs.contains(category) {
            problems["category"] = "must be one of: " + Oran.categories.map(\.id).joined(separator: ", ")
        }
        if let problem = MemberRules.neighbourhoodProblem(neighbourhood) { problems["neighbourhood"] = problem }
        guard problems.isEmpty else { throw MembershipError(.invalidFields, "The vendor has invalid fields.", fields: problems) }
    }
}
