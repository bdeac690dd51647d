// The colour theme (View → Theme): the system's, or Tensorscope's own light or dark one on the
// Fusion style. Every view follows the application palette (the timeline per frame, charts when
// it changes); the choice is remembered.
#pragma once

#include <QString>

namespace ts {

enum class Theme { System, Light, Dark };

QString themeName(Theme theme);  // "system", "light", "dark": the setting's value
Theme savedTheme();
// Applies it to the whole application and remembers it.
void applyTheme(Theme theme);

}  // namespace ts
