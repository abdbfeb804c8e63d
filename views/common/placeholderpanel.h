#pragma once

// PlaceholderPanel: the central area until the timeline exists. Without a trace it tells the
// user how to open one; with a trace it shows the trace's name and span.

#include "core/model/trace.h"

#include <QWidget>

class QLabel;

namespace tracedesk::views {

class PlaceholderPanel : public QWidget
{
    Q_OBJECT

public:
    explicit PlaceholderPanel(QWidget *parent = nullptr);

    void setTrace(const core::TracePtr &trace, const QString &displayName);
    // Replaces the texts, for a profile that has no timeline to show (a legacy run folder).
    void showNote(const QString &title, const QString &detail, const QString &hint);
    QString hintText() const;

    QString titleText() const;
    QString detailText() const;

private:
    QLabel *m_title = nullptr;
    QLabel *m_detail = nullptr;
    QLabel *m_hint = nullptr;
};

} // namespace tracedesk::views
