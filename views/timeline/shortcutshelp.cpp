#include "views/timeline/shortcutshelp.h"

#include <QMessageBox>

namespace tracedesk::views {

QString timelineShortcutsHtml()
{
    static const char *const kRows[][2] = {
        {"1 / 2 / 3 / 4", "Select / pan / zoom / timing tool"},
        {"W / S, Ctrl+wheel", "Zoom in / out at the cursor"},
        {"A / D (Shift: faster), Shift+wheel", "Pan left / right"},
        {"Wheel, Up / Down", "Scroll tracks"},
        {"Click", "Select a slice"},
        {"Drag (select tool)", "Select an area: summary per name"},
        {"F", "Frame the selection"},
        {"Z or 0", "Show the whole trace"},
        {"M", "Add a bookmark at the selection (its range stays shaded) or at the cursor; the "
              "Bookmarks menu jumps back"},
        {"Left / Right", "Previous / next slice on the row"},
        {"/ or Ctrl+F", "Search the whole trace"},
        {"Enter / Shift+Enter", "Zoom to the next / previous match (matches outlined)"},
        {"Enter / Esc in the search box", "Back to the timeline's keys"},
        {"Ctrl+Shift+M", "Maximise the analysis panel / restore the layout"},
        {"Esc", "Clear the timing interval"},
        {"Right click", "Hide or pin a track; collapse or expand all"},
        {"?", "This list"},
    };
    QString html = QStringLiteral("<table cellspacing='4'>");
    for (const auto &row : kRows)
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                    .arg(QString::fromLatin1(row[0]).toHtmlEscaped(), QString::fromLatin1(row[1]));
    return html + QStringLiteral("</table>");
}

void showTimelineShortcuts(QWidget *parent)
{
    auto *box = new QMessageBox(QMessageBox::NoIcon, QObject::tr("Keyboard Shortcuts"),
                                timelineShortcutsHtml(), QMessageBox::Close, parent);
    box->setObjectName(QStringLiteral("TimelineShortcuts"));
    box->setTextFormat(Qt::RichText);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setModal(false);
    box->show();
}

} // namespace tracedesk::views
