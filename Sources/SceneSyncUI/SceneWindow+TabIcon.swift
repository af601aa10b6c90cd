extension SceneWindow.Tab {
    /// A tab's icon, named as the SF Symbol it looks like. The window draws it beside the tab's
    /// label, as decoration: the tab is still named by its label (and badge) alone.
    ///
    /// ```swift
    /// SceneWindow.Tab(id: "order", title: "Order", icon: .cart, navigation: orderNavigation)
    /// ```
    public enum Icon: String, CaseIterable, Sendable {
        /// A bulleted list (`list.bullet`), for a menu or any list.
        case listBullet = "list.bullet"
        /// A shopping cart (`cart`), for an order or a basket.
        case cart
        /// Two speech bubbles (`bubble.left.and.bubble.right`), for conversations.
        case bubbleLeftAndBubbleRight = "bubble.left.and.bubble.right"
        /// A gauge (`gauge`), for a dashboard or figures.
        case gauge
        /// A fork and a knife (`fork.knife`), for food.
        case forkKnife = "fork.knife"
        /// A person (`person`), for an account or a profile.
        case person
    }
}
