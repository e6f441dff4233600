package org.fraudpipe.sim;

/** What kind of traffic a simulated transaction belongs to; the {@code pattern} of a label. */
public enum FraudPattern {
    /** The card holder's own activity: usual devices, merchants, home country, usual amounts. */
    NORMAL(false),
    /**
     * An attacker took over the account: 6..20 transactions within 2..15 minutes, from one or two
     * devices the user never used, in one or two countries other than home, with high amounts
     * (median 400.00) at random merchants.
     */
    ACCOUNT_TAKEOVER(true),
    /**
     * A stolen card is being tested: 10..30 tiny transactions (1.00..4.99) within 1..6 minutes,
     * from one new device abroad, each at a random merchant.
     */
    CARD_TESTING(true);

    private final boolean fraud;

    FraudPattern(boolean fraud) {
        this.fraud = fraud;
    }

    /** Whether transactions of this pattern are labelled fraudulent. */
    public boolean isFraud() {
        return fraud;
    }
}
