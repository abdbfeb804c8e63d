#pragma once

// The Preferences dialog's wiring: the settings it edits live in QSettings under
// `preferences/`, the cache ones go into the LoadController's LoadOptions, the theme into the
// application's style and palette.

#include "views/common/preferencesdialog.h"

class QWidget;

namespace tracedesk::app {

class LoadController;

views::Preferences loadPreferences();
void savePreferences(const views::Preferences &preferences);
// The cache folder the preferences mean (the default one when none is chosen).
QString cacheDirOf(const views::Preferences &preferences);
// Cache folder and limit into the loader's options; the theme when `withTheme`.
void applyPreferences(const views::Preferences &preferences, LoadController *loads,
                      bool withTheme);
// System: the style and palette the application started with; Light and Dark: Fusion with a
// light or dark palette.
void applyTheme(views::Theme theme);
// Shows the dialog; on OK saves and applies, and trims the cache to a lowered limit.
void showPreferences(QWidget *parent, LoadController *loads);

} // namespace tracedesk::app
