import Testing
@Test func t2() {}
