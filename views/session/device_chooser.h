// The GPU chooser of the Statistics and Charts tabs: "All GPUs", then each GPU with events (a
// trace's idle GPUs would only clutter the list). A live capture's newer snapshot may have GPUs
// the last one had not used yet: filling the chooser again keeps the user's choice.
#pragma once

#include <QComboBox>

#include "session/session.h"

namespace ts {

// Fills `box` with the GPUs of `s` that have events, keeping the chosen GPU (or All GPUs when it
// has none in `s`), without signalling the change; nothing is touched when the list is the same.
void fillDeviceChooser(QComboBox* box, const Session& s);

}  // namespace ts
