package org.fraudpipe.scoring.data;

import java.util.Objects;
import org.fraudpipe.schemas.avro.FeatureRecord;

/**
 * One training example: the features of one user's window and whether the window is fraudulent (it
 * contains a fraudulent transaction: the simulator's {@code WindowLabels} rule).
 *
 * @param features the window's features (only the feature fields and the window's identity matter
 *     for training; the pane fields are carried along unchanged)
 * @param fraud the label
 */
public record LabelledWindow(FeatureRecord features, boolean fraud) {
    public LabelledWindow {
        Objects.requireNonNull(features, "features");
    }
}
