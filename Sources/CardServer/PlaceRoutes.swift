import Hummingbird
import Membership
import PeezAPI

/// The neighbourhoods and shop categories, with their French and Arabic names: the lists the app's screens
/// show and the identifiers the API takes. Any credential may read them.
struct PlaceRoutes {
    private struct NeighbourhoodsBody: Encodable { var neighbourhoods: [Oran.Place] }
    private struct CategoriesBody: Encodable { var categories: [Oran.Place] }

    func register(on router: Router<ServerRequestContext>) {
        router.on("/v1/neighbourhoods", method: .get) { _, context in
            _ = try context.require(.vendor, .backend, .admin)
            return try JSONExchange.response(
                NeighbourhoodsBody(neighbourhoods: Oran.neighbourhoods),
                headers: [.cacheControl: "public, max-age=86400"]
            )
        }
        router.on("/v1/categories", method: .get) { _, context in
            _ = try context.require(.vendor, .backend, .admin)
            return try JSONExchange.response(CategoriesBody(categories: Oran.categories), headers: [.cacheControl: "public, max-age=86400"])
        }
    }
}
