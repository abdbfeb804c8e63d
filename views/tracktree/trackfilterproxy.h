#pragma once

// TrackFilterProxy: what the Tracks dock lists of a TrackTreeModel. Planes with no events (and
// their tracks, and hosts left with none) are left out unless showEmpty is set: a TPU profile
// carries dozens of empty planes that only push the busy ones off screen. A name filter keeps
// the rows whose name, or an ancestor's, contains the text (case-insensitive), with the
// ancestors of every match, so "conv" lists the matching tracks under their planes and "GPU:0"
// lists that plane with all its tracks.

#include <QSortFilterProxyModel>

namespace tracedesk::views {

class TrackFilterProxy : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit TrackFilterProxy(QObject *parent = nullptr);

    void setShowEmpty(bool show);
    bool showEmpty() const { return m_showEmpty; }
    void setNameFilter(const QString &text);
    QString nameFilter() const { return m_filter; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    bool nonEmpty(const QModelIndex &source) const;
    bool nameMatches(const QModelIndex &source) const;

    bool m_showEmpty = false;
    QString m_filter;
};

} // namespace tracedesk::views
